#!/usr/bin/env bash
# Makes sure a Chromium is installed for the browser test of the share page
# (test/integration/share-browser.test.ts). playwright-core drives Debian's
# own `chromium` package and never downloads a browser. Installs it with
# apt-get when missing (Debian, as root); otherwise fails with a clear message.
# CHROMIUM_PATH points the test at another Chromium.
set -euo pipefail

say() { printf '[browser] %s\n' "$*" >&2; }
die() { printf '[browser] ERROR: %s\n' "$*" >&2; exit 1; }

found() {
  local candidate
  for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then return 0; fi
  done
  return 1
}

if found; then exit 0; fi
command -v apt-get >/dev/null || die "Chromium is missing and this is not a Debian-like system: install Chromium and set CHROMIUM_PATH to its binary."
[ "$(id -u)" = 0 ] || die "Chromium is missing and installing it needs root: run 'sudo apt-get install chromium' once, then try again."
say "installing chromium with apt-get (for the share page's browser test)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || die "apt-get update failed"
apt-get install -y -qq chromium >/dev/null || die "apt-get install chromium failed"
found || die "chromium was installed but /usr/bin/chromium is not there: set CHROMIUM_PATH to the browser's binary"
say "chromium installed"
