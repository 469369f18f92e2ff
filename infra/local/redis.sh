#!/usr/bin/env bash
# Local Redis from Debian's package, on loopback: two servers with different jobs.
#   redis        ($REDIS_PORT, data under $STACK_DIR/redis): keys, credits, idempotency, snapshots,
#                BullMQ. appendonly, noeviction: none of it may vanish. A maxmemory
#                (FRS_REDIS_MAXMEMORY, 2gb) makes a full server refuse writes (the API then runs its
#                controls locally) instead of growing until the kernel kills it.
#   redis-cache  ($REDIS_CACHE_PORT, $STACK_DIR/redis-cache): the explain copies of fresh scores.
#                No persistence and bounded memory with volatile-ttl eviction: it is a cache in
#                front of ClickHouse, and writing ~3 KB a score to an append-only file would make
#                the durable server rewrite gigabytes of disposable data.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

install() {
  command -v redis-server >/dev/null || apt_install redis-server
}

# start_one <name> <port> <redis-server options...>
start_one() {
  local name=$1 port=$2 dir="$STACK_DIR/$1"
  shift 2
  mkdir -p "$dir"
  if pid_alive "$dir/pid"; then
    log "$name already running (pid $(cat "$dir/pid")) on port $port"
    return 0
  fi
  if port_open "$port"; then
    redis-cli -p "$port" ping >/dev/null 2>&1 || die "port $port is taken by something that is not Redis"
    log "a Redis not started by this project answers on port $port: reusing it as $name"
    return 0
  fi
  redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --daemonize yes \
    --pidfile "$dir/pid" --logfile "$dir/redis.log" "$@"
  wait_for "$name" 30 redis-cli -p "$port" ping || die "$name did not answer; see $dir/redis.log"
  log "$name log: $dir/redis.log"
}

start() {
  install
  start_one redis "$REDIS_PORT" --appendonly yes --save '' \
    --maxmemory "${FRS_REDIS_MAXMEMORY:-2gb}" --maxmemory-policy noeviction
  # Also on a server already running from before the bound existed.
  redis-cli -p "$REDIS_PORT" config set maxmemory "${FRS_REDIS_MAXMEMORY:-2gb}" >/dev/null
  start_one redis-cache "$REDIS_CACHE_PORT" --appendonly no --save '' \
    --maxmemory "${FRS_REDIS_CACHE_MAXMEMORY:-1gb}" --maxmemory-policy volatile-ttl
}

stop() {
  stop_pidfile redis-cache "$STACK_DIR/redis-cache/pid"
  stop_pidfile redis "$STACK_DIR/redis/pid"
}

"${1:-start}"
