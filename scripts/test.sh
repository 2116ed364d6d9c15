#!/usr/bin/env bash
# npm test: the same set-up as npm start, then the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
exec node_modules/.bin/vitest run "$@"
