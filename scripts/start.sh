#!/usr/bin/env bash
# npm start: install, bring up services, then hand over to the CLI, which
# migrates, seeds the demo on first run and runs API, workers and simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
exec node_modules/.bin/node src/cli/main.ts start "$@"
