/**
 * Writes the OpenAPI document to stdout (or a file), built from the route
 * table exactly as GET /openapi.json builds it, without a server:
 * `node scripts/openapi.ts [out.json] [--variant A|B|AB]`.
 */
import { writeFileSync } from 'node:fs';
import { buildOpenApi } from '../src/http/openapi.ts';
import { createMetrics } from '../src/http/prometheus.ts';
import { allRoutes } from '../src/http/routes/index.ts';
import { API_VERSION } from '../src/http/routes/system.routes.ts';

export function openApiDocument(variant = 'AB', serverUrl = 'http://127.0.0.1:8080') {
  const routes = allRoutes(createMetrics()).filter((r) => !r.variant || variant.includes(r.variant));
  return buildOpenApi(routes, { version: API_VERSION, serverUrl });
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--variant');
  const variant = at >= 0 ? (args.splice(at, 2)[1] ?? 'AB') : 'AB';
  const text = `${JSON.stringify(openApiDocument(variant), null, 2)}\n`;
  if (args[0]) writeFileSync(args[0], text);
  else process.stdout.write(text);
}
