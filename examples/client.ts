/**
 * A typed Sightline client in a few lines: types generated from the OpenAPI
 * document with openapi-typescript, requests made with openapi-fetch.
 *
 *   npx openapi-typescript http://127.0.0.1:8080/openapi.json -o examples/generated/api.d.ts
 *   SIGHTLINE_KEY=slk_... node examples/client.ts
 *
 * `npm test` compiles this file against types generated from the route table
 * (test/openapi/client.test.ts), so every field read here is one the API sends.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api.d.ts';

type Prompt = components['schemas']['PromptListItem'];

const api = createClient<paths>({
  baseUrl: process.env.SIGHTLINE_URL ?? 'http://127.0.0.1:8080',
  headers: { Authorization: `Bearer ${process.env.SIGHTLINE_KEY ?? ''}` },
});

/** The body of a success, or the error envelope's message as an exception. */
function ok<T>(result: { data?: T; error?: { error: string } }): T {
  if (result.data === undefined) throw new Error(result.error?.error ?? 'no response body');
  return result.data;
}

const me = ok(await api.GET('/whoami'));
console.log(`Key "${me.tokenName}" of ${me.user.name} in workspace ${me.org.name} (${me.org.plan}), ${me.role} access`);

const { projects } = ok(await api.GET('/orgs/{orgId}/projects', { params: { path: { orgId: me.org.id } } }));
const project = projects[0];
if (!project) throw new Error('This workspace has no projects yet');
console.log(
  `Project ${project.name} (${project.domain}), tracking ${project.competitors.map((c) => c.name).join(', ') || 'no competitors'}`,
);

const list = ok(
  await api.GET('/projects/{id}/prompts', {
    params: { path: { id: project.id }, query: { perPage: 5, sort: 'scanned' } },
  }),
);
const describe = (p: Prompt) =>
  `${p.text} [ChatGPT: ${p.latest.openai ?? 'not asked'}, stability: ${p.stability ?? 'none'}]`;
console.log(`${list.total} prompts; latest scanned:\n  ${list.prompts.map(describe).join('\n  ')}`);

const { period, start, report } = ok(
  await api.GET('/projects/{id}/report', { params: { path: { id: project.id }, query: { period: 'week' } } }),
);
if (report) {
  const { visibility, visibilityLow, visibilityHigh, shareOfVoice } = report.current;
  console.log(
    `Week of ${start} (${period}): visibility ${visibility ?? '-'}% (${visibilityLow ?? '-'} to ${visibilityHigh ?? '-'}), share of voice ${shareOfVoice ?? '-'}%`,
  );
  for (const row of report.ranking) console.log(`  #${row.rank} ${row.name} (${row.kind}): ${row.visibility ?? '-'}%`);
} else {
  console.log('No scan has stored answers yet');
}

const estimate = ok(
  await api.POST('/projects/{id}/scans/estimate', {
    params: { path: { id: project.id } },
    body: { providers: ['openai'] },
  }),
);
console.log(`A ChatGPT scan would ask ${estimate.prompts} prompts for ${estimate.formatted}`);

const { scans } = ok(await api.GET('/projects/{id}/scans', { params: { path: { id: project.id } } }));
const last = scans[0];
if (last) {
  const { scan, answers } = ok(
    await api.GET('/projects/{id}/scans/{scanId}', { params: { path: { id: project.id, scanId: last.id } } }),
  );
  console.log(`Last scan #${scan.id}: ${scan.status}, ${scan.answersDone}/${scan.answersTotal} answers, ${scan.cost}`);
  for (const a of answers.slice(0, 3))
    console.log(`  ${a.provider} ${a.verdict}: ${a.brands.map((b) => b.name).join(', ') || 'no brands named'}`);
}
