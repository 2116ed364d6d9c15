import type { SimAnswer, SimBlock } from '../answer.ts';
import {
  failureResponse,
  handlePrompt,
  json,
  type SimContext,
  type SimRequest,
  type SimResponse,
} from '../sim-context.ts';
import { hash, simId } from '../rng.ts';

/**
 * A SerpApi-style SERP API under /serp: `/search.json?engine=google` with an
 * `ai_overview` (inline, or lazily loaded behind a `page_token` fetched with
 * `engine=google_ai_overview`), and `engine=google_ai_mode`.
 */

export function serpError(_status: number, message: string): unknown {
  return { error: message };
}

/** text_blocks and references from an answer: paragraphs stay paragraphs, ranked items become one list. */
export function serpBlocks(answer: SimAnswer): { text_blocks: unknown[]; references: unknown[] } {
  const text_blocks: Record<string, unknown>[] = [];
  let list: Record<string, unknown>[] | null = null;
  for (const block of answer.blocks as SimBlock[]) {
    if (block.kind === 'item') {
      if (!list) {
        list = [];
        text_blocks.push({ type: 'list', list });
      }
      list.push({ title: block.title, snippet: block.detail, reference_indexes: block.cites });
      continue;
    }
    list = null;
    text_blocks.push({ type: 'paragraph', snippet: block.text, reference_indexes: block.cites });
  }
  const references = answer.sources.map((src, index) => ({
    title: src.title,
    link: src.url,
    snippet: src.snippet,
    source: src.domain,
    index,
  }));
  return { text_blocks, references };
}

interface Token {
  q: string;
  gl: string | null;
  hl: string | null;
}

export async function serpRoute(ctx: SimContext, req: SimRequest): Promise<SimResponse> {
  if (req.path !== '/search.json' && req.path !== '/search') return json(404, serpError(404, `Not found: ${req.path}`));
  if (req.method !== 'GET') return json(405, serpError(405, 'Use GET'));
  if (!req.query.get('api_key'))
    return json(
      401,
      serpError(401, 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key (simulated)'),
    );

  const engine = req.query.get('engine') ?? 'google';
  const gl = req.query.get('gl');
  const hl = req.query.get('hl');
  const location = req.query.get('location');
  const n = ctx.state.nextId();
  const metadata = (status: string) => ({
    id: simId('', n, ctx.seed),
    status,
    json_endpoint: `${req.origin}/serp/searches/${simId('', n, ctx.seed)}.json`,
    created_at: new Date()
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC'),
    processed_at: new Date()
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC'),
    total_time_taken: 1.42,
  });

  if (engine === 'google_ai_overview') {
    const token = decodeToken(req.query.get('page_token'));
    if (!token) return json(400, serpError(400, 'Missing or expired `page_token` parameter.'));
    const { answer, failure } = await handlePrompt(ctx, req, {
      provider: 'google-ai-overview',
      model: 'ai-overview',
      prompt: token.q,
      system: null,
      location: token.gl,
      language: token.hl,
    });
    if (failure) return failureResponse(failure, serpError);
    return json(200, {
      search_metadata: metadata('Success'),
      search_parameters: { engine, page_token: req.query.get('page_token') },
      ai_overview: serpBlocks(answer),
    });
  }

  const q = req.query.get('q');
  if (!q) return json(400, serpError(400, 'Missing query `q` parameter.'));

  if (engine === 'google_ai_mode') {
    const { answer, failure } = await handlePrompt(ctx, req, {
      provider: 'google-ai-mode',
      model: 'ai-mode',
      prompt: q,
      system: null,
      location: gl ?? location,
      language: hl,
      countryName: location,
    });
    if (failure) return failureResponse(failure, serpError);
    return json(200, {
      search_metadata: metadata('Success'),
      search_parameters: { engine, q, gl, hl, location_requested: location },
      ...serpBlocks(answer),
    });
  }

  if (engine !== 'google') return json(400, serpError(400, `Unsupported \`${engine}\` search engine.`));
  const { answer, failure, script } = await handlePrompt(ctx, req, {
    provider: 'google-ai-overview',
    model: 'ai-overview',
    prompt: q,
    system: null,
    location: gl ?? location,
    language: hl,
    countryName: location,
  });
  if (failure) return failureResponse(failure, serpError);
  // About half of the overviews load lazily, as on Google, unless a script decides.
  const lazy = script?.pageToken ?? hash(`${ctx.seed}|${q}`) % 2 === 0;
  const token = Buffer.from(JSON.stringify({ q, gl, hl } satisfies Token)).toString('base64url');
  const hasOverview = answer.blocks.length > 0;
  return json(200, {
    search_metadata: metadata('Success'),
    search_parameters: {
      engine,
      q,
      gl,
      hl,
      location_requested: location,
      google_domain: 'google.com',
      device: 'desktop',
    },
    search_information: {
      query_displayed: q,
      total_results: 1_000_000 + (hash(q) % 9_000_000),
      time_taken_displayed: 0.38,
    },
    ...(hasOverview
      ? {
          ai_overview: lazy
            ? {
                page_token: token,
                serpapi_link: `${req.origin}/serp/search.json?engine=google_ai_overview&page_token=${token}`,
              }
            : serpBlocks(answer),
        }
      : {}),
    organic_results: answer.sources.slice(0, 5).map((src, i) => ({
      position: i + 1,
      title: src.title,
      link: src.url,
      displayed_link: src.domain,
      snippet: src.snippet,
      source: src.domain,
    })),
  });
}

function decodeToken(token: string | null): Token | null {
  if (!token) return null;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<Token>;
    return typeof parsed.q === 'string' ? { q: parsed.q, gl: parsed.gl ?? null, hl: parsed.hl ?? null } : null;
  } catch {
    return null;
  }
}
