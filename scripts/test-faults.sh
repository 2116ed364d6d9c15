#!/usr/bin/env bash
# npm run test:faults: the tests that need the machine to themselves, one
# file at a time: the fault tests (a worker killed, Redis data lost,
# PostgreSQL and Redis stopped for 20 s) and test/serial (API latency during
# a 2 MB import).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
# Whatever happens inside, leave both services running.
trap 'bash scripts/services.sh >/dev/null 2>&1 || true' EXIT
node_modules/.bin/vitest run --config vitest.serial.config.ts "$@"
