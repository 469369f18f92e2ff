#!/usr/bin/env bash
# Headless Chromium for the portal's browser tests: Debian's package, never a downloaded browser.
#   chromium.sh install   apt-get install chromium when it is missing
#   chromium.sh path      print the executable the tests launch
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

install() {
  command -v chromium >/dev/null || apt_install chromium
}

path() {
  command -v chromium || die "chromium is not installed; run: bash infra/local/chromium.sh install"
}

"${1:-install}"
