#!/usr/bin/env bash
# Schemathesis (the OpenAPI fuzzer the contract test runs) in a project-local virtualenv.
#   schemathesis.sh install   create .tools/schemathesis and pip-install the pinned version
#                             from PyPI (first run only)
#   schemathesis.sh path      print the path of the `schemathesis` executable (installs first)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
VERSION="${FRS_SCHEMATHESIS_VERSION:-4.32.5}"
VENV="$ROOT/.tools/schemathesis"
BIN="$VENV/bin/schemathesis"

# Asks the venv's own metadata; `pip show | grep -q` would break pip's pipe under pipefail.
installed() {
  [[ -x $BIN ]] && [[ $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null) == "$VERSION" ]]
}

install() {
  installed && return 0
  log "installing schemathesis $VERSION into $VENV (first run only)"
  make_venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION" >&2
  installed || die "schemathesis $VERSION did not install"
}

case "${1:-install}" in
  install) install ;;
  path) install && echo "$BIN" ;;
  *) die "usage: schemathesis.sh install|path" ;;
esac
