#!/usr/bin/env node
// npx sightline: node_modules/.bin is first on PATH, so this runs on the pinned Node 24,
// which runs the TypeScript sources directly (type stripping).
import '../src/cli/main.ts';
