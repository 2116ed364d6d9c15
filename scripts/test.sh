#!/usr/bin/env bash
# npm test: the same set-up as npm start, plus Chromium for the share page's
# browser test, then the linters (ESLint's layer rules and Prettier), the
# whole suite, then the fault tests (test/faults: they stop PostgreSQL and
# Redis, so they run alone, after everything else). With arguments (files,
# -t ...), only the main suite runs with them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
bash scripts/browser.sh
if [ "$#" -gt 0 ]; then exec node_modules/.bin/vitest run "$@"; fi
npm run --silent lint
node_modules/.bin/vitest run
exec bash scripts/test-faults.sh
