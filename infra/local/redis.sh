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
# Both load the ACL users of the compose deployment (infra/ops/redis/users.acl and
# explain-users.acl), so the services run here as they do there, each as its own least-privilege
# user. Their passwords are generated once per stack directory into $STACK_DIR/redis-acl/
# passwords.env (mode 600, like the rendered ACL files beside it); the services and the tests read
# them from there (infra/local/redis-users.ts). Unlike in the deployment the `default` user stays
# on, without a password and with every right, for redis-cli and test fixtures on this machine.
#   redis.sh start   start what is not running; a server already running gets the users too
#   redis.sh acl     (re)write passwords.env and the rendered ACL files only, touch no server
#   redis.sh stop
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ACL_DIR="$STACK_DIR/redis-acl"
# Absolute: redis-server resolves --aclfile after moving to its --dir.
[[ $ACL_DIR == /* ]] || ACL_DIR="$PWD/$ACL_DIR"
PASSWORDS="$ACL_DIR/passwords.env"
OPS_REDIS="$ROOT/infra/ops/redis"

install() {
  command -v redis-server >/dev/null || apt_install redis-server
}

# A password for each ${FRS_REDIS_*_PASSWORD} the ACL templates name, generated the first time it
# is needed and kept: running services and a second start keep working with the same ones.
passwords() {
  (umask 077 && mkdir -p "$ACL_DIR")
  chmod 700 "$ACL_DIR"
  (umask 077 && touch "$PASSWORDS")
  chmod 600 "$PASSWORDS"
  local name
  for name in $(grep -ho '\${FRS_REDIS_[A-Z_]*_PASSWORD}' "$OPS_REDIS"/*.acl | tr -d '${}' | sort -u); do
    grep -q "^$name=" "$PASSWORDS" || echo "$name=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" >>"$PASSWORDS"
  done
}

# render <template> <output>: the deployment's rendering (render-acl.sh) with the local
# passwords, the default user turned back on with every right (see the header).
render() {
  local out=$2
  (
    set -a
    # shellcheck disable=SC1090
    source "$PASSWORDS"
    set +a
    umask 077
    sh "$OPS_REDIS/render-acl.sh" "$1" | sed 's/^user default .*/user default on nopass ~* \&* +@all/' >"$out.tmp"
  )
  mv "$out.tmp" "$out"
}

acl() {
  (umask 077 && mkdir -p "$ACL_DIR")
  # Two test runs may start the stack at once: one at a time writes the passwords and the files
  # and gives the servers their users (the lock is held until this script exits).
  exec 9>>"$ACL_DIR/lock"
  flock 9
  passwords
  render "$OPS_REDIS/users.acl" "$ACL_DIR/users.acl"
  render "$OPS_REDIS/explain-users.acl" "$ACL_DIR/explain-users.acl"
}

# What a server was last given: its run id (a restart makes a new one) and the rendered file's
# digest. The same on the next start: nothing to do, so the every-run `stack.sh up` of the tests
# does not disturb the connections of services other test runs have on the same server.
loaded_state() {
  printf '%s %s' "$(redis-cli -p "$1" info server | tr -d '\r' | sed -n 's/^run_id://p')" \
    "$(sha256sum <"$2" | cut -d' ' -f1)"
}

# logs_in <port> <acl file>: the first password user of the file can log in with its password.
logs_in() {
  local user pass
  read -r user pass < <(sed -n 's/^user \([^ ]*\) on >\([^ ]*\) .*/\1 \2/p' "$2" | head -n 1)
  [[ -n $user ]] || return 0
  # A failed AUTH leaves redis-cli on the default user: ask who it is.
  [[ $(redis-cli -p "$1" --user "$user" --pass "$pass" --no-auth-warning acl whoami 2>/dev/null) == "$user" ]]
}

# load_acl <name> <port> <acl file>: the users of <acl file> on a server that is already running,
# unless it has them already (loaded_state). Started with this file (CONFIG GET aclfile names it):
# ACL LOAD re-reads it. Started without one (a start from before the stack had users, or a Redis
# not started by this project): the file cannot be attached at run time, so each user is applied
# with ACL SETUSER <name> reset <rules> (not persisted: the next start of this script passes the
# file); the default user is left as that server has it. ACL LOAD closes the connections of the
# users it reloads (Redis 7.0; the services reconnect at once), ACL SETUSER changes apply to the
# open ones.
load_acl() {
  local name=$1 port=$2 file=$3 current out state
  state=$(loaded_state "$port" "$file")
  # The marker is this checkout's: another checkout sharing the server may have given the users
  # its own passwords since, so one user must also still log in with ours.
  if [[ -f $file.loaded && $(cat "$file.loaded") == "$state" ]] && logs_in "$port" "$file"; then
    log "$name: ACL users up to date"
    return 0
  fi
  current=$(redis-cli -p "$port" config get aclfile | sed -n 2p)
  if [[ $current == "$file" ]]; then
    out=$(redis-cli -p "$port" acl load)
  else
    # redis-cli splits each line itself: no shell globbing of the key patterns.
    out=$(grep -v '^user default ' "$file" | sed 's/^user \([^ ]*\)/ACL SETUSER \1 reset/' | redis-cli -p "$port")
  fi
  if grep -qv '^OK$' <<<"$out"; then die "$name: loading the ACL users failed: $out"; fi
  echo "$state" >"$file.loaded"
  log "$name: ACL users loaded ($([[ $current == "$file" ]] && echo 'ACL LOAD' || echo 'ACL SETUSER, not persisted until its next start'))"
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
  # 9>&-: the daemon must not inherit the lock of acl(), or it would hold it for ever.
  redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --daemonize yes \
    --pidfile "$dir/pid" --logfile "$dir/redis.log" "$@" 9>&-
  wait_for "$name" 30 redis-cli -p "$port" ping || die "$name did not answer; see $dir/redis.log"
  log "$name log: $dir/redis.log"
}

start() {
  install
  acl
  start_one redis "$REDIS_PORT" --appendonly yes --save '' \
    --maxmemory "${FRS_REDIS_MAXMEMORY:-2gb}" --maxmemory-policy noeviction --aclfile "$ACL_DIR/users.acl"
  # Also on a server already running from before the bound (or the users) existed.
  redis-cli -p "$REDIS_PORT" config set maxmemory "${FRS_REDIS_MAXMEMORY:-2gb}" >/dev/null
  load_acl redis "$REDIS_PORT" "$ACL_DIR/users.acl"
  start_one redis-cache "$REDIS_CACHE_PORT" --appendonly no --save '' \
    --maxmemory "${FRS_REDIS_CACHE_MAXMEMORY:-1gb}" --maxmemory-policy volatile-ttl \
    --aclfile "$ACL_DIR/explain-users.acl"
  load_acl redis-cache "$REDIS_CACHE_PORT" "$ACL_DIR/explain-users.acl"
}

stop() {
  stop_pidfile redis-cache "$STACK_DIR/redis-cache/pid"
  stop_pidfile redis "$STACK_DIR/redis/pid"
}

"${1:-start}"
