#!/usr/bin/env bash
# Local Redis from Debian's package, on loopback, data under $STACK_DIR/redis.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DIR="$STACK_DIR/redis"
PIDFILE="$DIR/pid"

install() {
  command -v redis-server >/dev/null || apt_install redis-server
}

start() {
  install
  mkdir -p "$DIR"
  if pid_alive "$PIDFILE"; then
    log "redis already running (pid $(cat "$PIDFILE")) on port $REDIS_PORT"
    return 0
  fi
  if port_open "$REDIS_PORT"; then
    redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 || die "port $REDIS_PORT is taken by something that is not Redis"
    log "a Redis not started by this project answers on port $REDIS_PORT: reusing it"
    return 0
  fi
  # appendonly: the reputation ledger, keys and counters survive a restart of the local stack.
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$DIR" --daemonize yes \
    --pidfile "$PIDFILE" --logfile "$DIR/redis.log" --appendonly yes --save '' \
    --maxmemory-policy noeviction
  wait_for redis 30 redis-cli -p "$REDIS_PORT" ping || die "redis did not answer; see $DIR/redis.log"
  log "redis log: $DIR/redis.log"
}

stop() { stop_pidfile redis "$PIDFILE"; }

"${1:-start}"
