#!/usr/bin/env bash
# npm test: the same set-up as npm start, plus Chromium for the browser tests
# (the share page, the queue dashboard) and promtool for the alert rules
# (ops/prometheus), then the linters (ESLint's layer rules and Prettier), the
# whole suite, then the fault tests (test/faults: they stop PostgreSQL and
# Redis, so they run alone, after everything else). With arguments (files,
# -t ...), only the main suite runs with them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
bash scripts/browser.sh
bash scripts/promtool.sh
if [ "$#" -gt 0 ]; then exec node_modules/.bin/vitest run "$@"; fi
npm run --silent lint
node_modules/.bin/vitest run
exec bash scripts/test-faults.sh
