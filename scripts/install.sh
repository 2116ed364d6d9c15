#!/usr/bin/env bash
# Installs npm dependencies (including the pinned Node 24) when they are
# missing or older than package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  printf '[install] installing npm dependencies\n' >&2
  npm ci --no-audit --no-fund >&2
fi
