#!/usr/bin/env bash
# The memory of a running `npm start` / `npm run start:cluster`: the RSS of the start process and
# every process under it (API nodes, sinks, refreshers, portal), of every server whose pid file is
# under the stack dir (the cluster scripts' and stack.sh's), and of the explain cache, summed.
#   bash infra/local/topology-rss.sh <pid of the start process>
# Prints one line per process and the total in MiB (docs/scale-out.md, "Running it locally").
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_pid=${1:?usage: topology-rss.sh <pid of npm start>}

descendants() {
  local p
  echo "$1"
  for p in $(pgrep -P "$1"); do descendants "$p"; done
}
pids=$(descendants "$start_pid")
while IFS= read -r f; do
  pid_alive "$f" && pids+=$'\n'"$(cat "$f")"
done < <(find "$STACK_DIR" -name pid -type f)
# The explain cache may run from another stack dir: found by its port.
cache=$(ss -ltnpH "sport = :$REDIS_CACHE_PORT" | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2 || true)
[[ -n $cache ]] && pids+=$'\n'"$cache"

# shellcheck disable=SC2086
ps -o pid=,rss=,args= -p "$(sort -un <<<"$pids" | paste -sd,)" |
  awk '{ total += $2; printf "%8d KiB  %s\n", $2, substr($0, index($0, $3), 90) } END { printf "total %.0f MiB\n", total / 1024 }'
