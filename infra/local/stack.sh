#!/usr/bin/env bash
# The local stack without Docker: Redis, ClickHouse and Kafka on loopback under .stack/.
#   stack.sh install install what is missing (Debian packages, Kafka jars, chDB for the tests
#                    on current ClickHouse, Chromium for the portal's browser tests, Schemathesis
#                    for the contract tests), start nothing
#   stack.sh up      install what is missing (first run only), start what is not running,
#                    apply ClickHouse migrations and create Kafka topics
#   stack.sh down    stop exactly what `up` started (by pid)
#   stack.sh status  one line per server
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib.sh"

install() {
  bash "$HERE/redis.sh" install
  bash "$HERE/clickhouse.sh" install
  bash "$HERE/kafka.sh" install
  bash "$HERE/chdb.sh" install
  bash "$HERE/chromium.sh" install
  # The contract test's fuzzer (test/contract/schemathesis.test.ts), from PyPI into .tools/.
  bash "$HERE/schemathesis.sh" install
  log "redis, clickhouse, kafka, chdb, chromium (portal browser tests) and schemathesis are installed"
}

up() {
  local t0=$SECONDS
  bash "$HERE/redis.sh" start
  bash "$HERE/clickhouse.sh" start
  bash "$HERE/kafka.sh" start
  bash "$HERE/chdb.sh" install
  # The project pins Node 24 (TypeScript runs natively on it); the system Node may be older.
  local node="$ROOT/node_modules/.bin/node"
  [[ -x $node ]] || node=node
  (cd "$ROOT" && "$node" infra/clickhouse/migrate.ts && "$node" infra/kafka/topics.ts)
  log "stack up in $((SECONDS - t0)) s: redis 127.0.0.1:$REDIS_PORT (cache :$REDIS_CACHE_PORT), kafka 127.0.0.1:$KAFKA_PORT, clickhouse http://127.0.0.1:$CLICKHOUSE_HTTP_PORT"
}

down() {
  bash "$HERE/kafka.sh" stop
  bash "$HERE/clickhouse.sh" stop
  bash "$HERE/redis.sh" stop
}

status() {
  local name pidfile
  for name in redis redis-cache clickhouse kafka; do
    pidfile="$STACK_DIR/$name/pid"
    if pid_alive "$pidfile"; then echo "$name: running (pid $(cat "$pidfile"))"; else echo "$name: stopped"; fi
  done
}

"${1:-up}"
