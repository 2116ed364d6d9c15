#!/usr/bin/env bash
# Makes sure `promtool` is installed for the alert rules' test
# (test/unit/ops-rules.test.ts runs `promtool check rules` and `promtool test
# rules` on ops/prometheus/). Debian's `prometheus` package ships it; it is
# installed with apt-get when missing (Debian, as root), without starting a
# Prometheus server; otherwise this fails with a clear message.
# PROMTOOL_PATH points the test at another promtool.
set -euo pipefail

say() { printf '[promtool] %s\n' "$*" >&2; }
die() { printf '[promtool] ERROR: %s\n' "$*" >&2; exit 1; }

found() {
  local candidate
  for candidate in "${PROMTOOL_PATH:-}" /usr/bin/promtool; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then return 0; fi
  done
  return 1
}

if found; then exit 0; fi
command -v apt-get >/dev/null || die "promtool is missing and this is not a Debian-like system: install Prometheus' promtool and set PROMTOOL_PATH to it."
[ "$(id -u)" = 0 ] || die "promtool is missing and installing it needs root: run 'sudo apt-get install prometheus' once, then try again."
say "installing prometheus with apt-get (for promtool, which checks ops/prometheus/)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || die "apt-get update failed"
# No service is started from a package install here (policy-rc.d answers 101): only promtool is wanted.
policy=/usr/sbin/policy-rc.d
added_policy=no
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  added_policy=yes
fi
status=0
apt-get install -y -qq --no-install-recommends prometheus >/dev/null || status=$?
if [ "$added_policy" = yes ]; then rm -f "$policy"; fi
[ "$status" = 0 ] || die "apt-get install prometheus failed"
found || die "prometheus was installed but /usr/bin/promtool is not there: set PROMTOOL_PATH to promtool"
say "promtool installed"
