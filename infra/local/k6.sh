#!/usr/bin/env bash
# Installs the pinned k6 into the project's git-ignored tool folder (.tools/bin) with the Go
# toolchain from the Go module proxy (first run only; a few minutes of compiling), then prints
# its path.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
K6_VERSION="${FRS_K6_VERSION:-v1.8.1}"
BIN="$ROOT/.tools/bin"

if [[ -x $BIN/k6 ]] && "$BIN/k6" version 2>/dev/null | grep -q "${K6_VERSION#v}"; then
  echo "$BIN/k6"
  exit 0
fi
command -v go >/dev/null || apt_install golang-go
log "building k6 $K6_VERSION into $BIN (first run only)"
mkdir -p "$BIN"
GOBIN="$BIN" go install "go.k6.io/k6@$K6_VERSION" >&2
echo "$BIN/k6"
