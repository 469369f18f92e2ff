# Shared helpers for the local stack scripts. Sourced, not run.
# Everything lives under $STACK_DIR (default: <repo>/.stack, git-ignored); each server keeps its
# pid in $STACK_DIR/<name>/pid so `stop` ends exactly what `start` began.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STACK_DIR="${FRS_STACK_DIR:-$ROOT/.stack}"
REDIS_PORT="${FRS_REDIS_PORT:-6379}"
REDIS_CACHE_PORT="${FRS_REDIS_CACHE_PORT:-6380}"
KAFKA_PORT="${FRS_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${FRS_KAFKA_CONTROLLER_PORT:-9093}"
CLICKHOUSE_HTTP_PORT="${FRS_CLICKHOUSE_HTTP_PORT:-8123}"
CLICKHOUSE_TCP_PORT="${FRS_CLICKHOUSE_TCP_PORT:-9000}"

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] error: %s\n' "$*" >&2; exit 1; }

# Root installs directly; anyone else goes through sudo when it exists.
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $*"
  fi
}

APT_UPDATED=0
apt_install() {
  if [[ $APT_UPDATED -eq 0 ]]; then
    log "apt-get update"
    as_root apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

pid_alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for <what> <seconds> <command...>: polls until the command succeeds.
wait_for() {
  local what=$1 secs=$2
  shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
  log "$what is up"
}

# stop_pidfile <name> <pidfile>: TERM, wait up to 30 s, then KILL.
# signal_pidfiles <pid file>...: SIGTERM to each running one, so that the stop_pidfile calls that
# follow wait for servers stopping together instead of one after the other (a cluster: 2 s each).
signal_pidfiles() {
  local f
  for f in "$@"; do pid_alive "$f" && kill "$(cat "$f")"; done
  return 0
}

stop_pidfile() {
  local name=$1 pidfile=$2 pid
  # Read once: a server signalled by signal_pidfiles may remove its pid file at any moment (Redis
  # does on exit), and a second read would then fail the whole stop.
  pid=$(cat "$pidfile" 2>/dev/null) || pid=
  if [[ -z $pid ]] || ! kill -0 "$pid" 2>/dev/null; then
    log "$name is not running"
    rm -f "$pidfile"
    return 0
  fi
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name did not stop in 30 s, killing"
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
  log "$name stopped"
}

# make_venv <dir>: a fresh Python virtualenv at <dir>. Debian's python3 makes venvs with pip only
# once python3-venv is installed (its stub ensurepip imports fine, so the venv itself is tried).
make_venv() {
  local dir=$1
  command -v python3 >/dev/null || apt_install python3
  rm -rf "$dir"
  if ! python3 -m venv "$dir" >/dev/null 2>&1; then
    rm -rf "$dir"
    apt_install python3-venv
    python3 -m venv "$dir"
  fi
}
