#!/usr/bin/env bash
# Current ClickHouse in-process: chDB (`chdb-core` from PyPI, the ClickHouse 26.x engine as a
# Python module) in a venv under $STACK_DIR/chdb-venv. The test suite applies every migration and
# runs every query of the services and of docs/data.md on it, next to the 18.16 server, so what
# production runs is tested rather than assumed. Nothing is started: the test spawns
# infra/clickhouse/chdb-runner.py with this venv's python.
#   chdb.sh install   create the venv and install the pinned chdb-core (no-op when present)
#   chdb.sh python    print the venv's python path (exit 1 when not installed)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
VENV="$STACK_DIR/chdb-venv"
# Pinned so a new release cannot change CI's verdict unnoticed; bump deliberately.
CHDB_CORE_VERSION="26.9.0"

# The stamp is written only after a successful import, so `up` can check it without starting Python.
STAMP="$VENV/.chdb-core-$CHDB_CORE_VERSION"
installed() { [[ -f $STAMP && -x $VENV/bin/python ]]; }

install() {
  installed && return 0
  log "installing chdb-core $CHDB_CORE_VERSION into $VENV"
  make_venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "chdb-core==$CHDB_CORE_VERSION"
  "$VENV/bin/python" -c "import chdb" || die "chdb-core did not install into $VENV"
  touch "$STAMP"
  log "chdb $("$VENV/bin/python" -c 'import chdb; print(chdb.query("SELECT version()", "TSV"), end="")') installed"
}

python() {
  installed || die "chdb is not installed: run bash infra/local/chdb.sh install"
  echo "$VENV/bin/python"
}

"${1:-install}"
