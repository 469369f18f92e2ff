#!/usr/bin/env bash
# A local Redis Cluster for trying and testing the multi-node topology (docs/scale-out.md): six
# redis-server processes on loopback, three primaries and three replicas, data under
# $STACK_DIR/redis-cluster/<first port>/<port>/. It takes the place of the durable Redis only
# (REDIS_URL); the explain cache stays a single server. Each node loads the ACL users of
# infra/ops/redis/users.acl with the local passwords of infra/local/redis.sh (read, never
# rewritten), so the services log in as they do on the single server; the default user stays on
# for redis-cli and fixtures.
#   redis-cluster.sh up      start the nodes and create the cluster (idempotent); prints the env
#   redis-cluster.sh down    stop the nodes and remove their data (a throwaway cluster)
#   redis-cluster.sh status
#   redis-cluster.sh env     the variables a service needs to use it (REDIS_CLUSTER_NODES, ...)
# FRS_REDIS_CLUSTER_PORT (7000): the first node's port; the others follow it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BASE_PORT="${FRS_REDIS_CLUSTER_PORT:-7000}"
PORTS=()
for i in 0 1 2 3 4 5; do PORTS+=($((BASE_PORT + i))); done
DIR="$STACK_DIR/redis-cluster/$BASE_PORT"
[[ $DIR == /* ]] || DIR="$PWD/$DIR"
PASSWORDS="$STACK_DIR/redis-acl/passwords.env"

# The users of the durable server, rendered with the local passwords (as redis.sh does).
render_acl() {
  [[ -f $PASSWORDS ]] || bash "$ROOT/infra/local/redis.sh" acl
  (
    set -a
    # shellcheck disable=SC1090
    source "$PASSWORDS"
    set +a
    umask 077
    sh "$ROOT/infra/ops/redis/render-acl.sh" "$ROOT/infra/ops/redis/users.acl" |
      sed 's/^user default .*/user default on nopass ~* \&* +@all/' >"$DIR/users.acl.tmp"
  )
  mv "$DIR/users.acl.tmp" "$DIR/users.acl"
}

cluster_ok() {
  local p
  for p in "${PORTS[@]}"; do
    redis-cli -p "$p" cluster info 2>/dev/null | tr -d '\r' | grep -q '^cluster_state:ok$' || return 1
  done
}

up() {
  command -v redis-server >/dev/null || die "redis-server is not installed (apt-get install redis-server)"
  (umask 077 && mkdir -p "$DIR")
  render_acl
  local p
  for p in "${PORTS[@]}"; do
    mkdir -p "$DIR/$p"
    if pid_alive "$DIR/$p/pid"; then continue; fi
    port_open "$p" && die "port $p is taken by a process this script did not start"
    # Small and quick: no fsync per write, no RDB; the cluster is for tests and trials. A replica
    # may always take over (validity factor 0): a test kills a primary seconds after the start.
    redis-server --port "$p" --bind 127.0.0.1 --dir "$DIR/$p" --daemonize yes \
      --pidfile "$DIR/$p/pid" --logfile "$DIR/$p/redis.log" \
      --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
      --cluster-replica-validity-factor 0 \
      --appendonly yes --appendfsync no --save '' --maxmemory 256mb --maxmemory-policy noeviction \
      --aclfile "$DIR/users.acl"
    wait_for "cluster node $p" 10 redis-cli -p "$p" ping || die "node $p did not answer; see $DIR/$p/redis.log"
  done
  if ! cluster_ok; then
    # Fresh nodes only: a node that already knows others is part of a cluster being formed.
    if [[ $(redis-cli -p "$BASE_PORT" cluster info | tr -d '\r' | sed -n 's/^cluster_known_nodes://p') == 1 ]]; then
      local hosts=()
      for p in "${PORTS[@]}"; do hosts+=("127.0.0.1:$p"); done
      redis-cli --cluster create "${hosts[@]}" --cluster-replicas 1 --cluster-yes >"$DIR/create.log" 2>&1 ||
        die "creating the cluster failed; see $DIR/create.log"
    fi
    wait_for "redis cluster" 30 cluster_ok || die "the cluster did not reach cluster_state:ok"
  fi
  env_vars
}

down() {
  local p
  signal_pidfiles "$DIR"/*/pid
  for p in "${PORTS[@]}"; do stop_pidfile "cluster node $p" "$DIR/$p/pid"; done
  rm -rf "$DIR"
}

status() {
  local p
  for p in "${PORTS[@]}"; do
    if pid_alive "$DIR/$p/pid"; then
      echo "$p $(redis-cli -p "$p" role | head -n 1)"
    else
      echo "$p down"
    fi
  done
  cluster_ok && echo "cluster_state:ok" || echo "cluster not ok"
}

# What a service sets to use the cluster (it logs in with its own user through REDIS_URL).
env_vars() {
  local nodes=()
  for p in "${PORTS[@]:0:3}"; do nodes+=("127.0.0.1:$p"); done
  echo "REDIS_CLUSTER_NODES=$(IFS=,; echo "${nodes[*]}")"
  echo "REDIS_URL=redis://127.0.0.1:$BASE_PORT"
  echo "BULLMQ_PREFIX={frs}"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  env) env_vars ;;
  *) die "usage: redis-cluster.sh up|down|status|env" ;;
esac
