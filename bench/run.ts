/** npm run bench: runs every benchmark in turn (or those named: npm run bench -- http). */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const all = readdirSync(dir)
  // traced.ts runs another bench with tracing on (node bench/traced.ts scan).
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'lib.ts', 'traced.ts'].includes(f))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : all;
let failed = 0;
for (const name of wanted) {
  if (!all.includes(name)) {
    console.error(`no benchmark named ${name}; have: ${all.join(', ')}`);
    failed++;
    continue;
  }
  console.log(`\n=== bench/${name} ===`);
  const r = spawnSync(process.execPath, [path.join(dir, `${name}.ts`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
