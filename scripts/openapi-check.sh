#!/usr/bin/env bash
# The OpenAPI check by hand (npm test runs it as test/openapi/client.test.ts):
# dump the document from the route table, lint it with redocly's recommended
# rules (redocly.yaml), generate TypeScript types with openapi-typescript and
# compile examples/client.ts against them. Offline: nothing is fetched.
set -euo pipefail
cd "$(dirname "$0")/.."
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
node=node_modules/.bin/node
doc="${TMPDIR:-/tmp}/sightline-openapi.json"
"$node" scripts/openapi.ts "$doc"
"$node" node_modules/.bin/redocly lint "$doc" --config redocly.yaml
mkdir -p examples/generated
"$node" node_modules/.bin/openapi-typescript "$doc" -o examples/generated/api.d.ts
"$node" node_modules/typescript/bin/tsc -p examples/tsconfig.json
echo "OpenAPI check passed: $doc" >&2
