#!/usr/bin/env bash
# Installs npm dependencies (including the pinned Node 24) when they are
# missing or older than package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  printf '[install] installing npm dependencies\n' >&2
  # Not `npm ci`: on this registry npm 11 reports the lockfile "out of sync" over
  # other platforms' optional packages (msgpackr-extract), even for a fresh lockfile.
  # `npm install` still installs the locked versions.
  npm install --no-audit --no-fund >&2
fi
