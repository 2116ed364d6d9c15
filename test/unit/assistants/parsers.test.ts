import { describe, expect, it } from 'vitest';
import { AssistantError } from '../../../src/assistants/assistant-error.ts';
import { parseAnthropicMessage } from '../../../src/assistants/parsers/anthropic.ts';
import { parseAppAnswer } from '../../../src/assistants/parsers/app.ts';
import { charSpan, parseGeminiResponse } from '../../../src/assistants/parsers/gemini.ts';
import { parseOpenAIResponse } from '../../../src/assistants/parsers/openai.ts';
import { parsePerplexityCompletion } from '../../../src/assistants/parsers/perplexity.ts';
import { parseSerpAiMode, parseSerpOverview } from '../../../src/assistants/parsers/serp.ts';
import { fixture } from './fixtures.ts';

function failure(fn: () => unknown): AssistantError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AssistantError) return err;
    throw err;
  }
  throw new Error('expected an AssistantError');
}

describe('OpenAI Responses parser', () => {
  const parsed = parseOpenAIResponse(fixture('openai-response.json'));

  it('reads the message text and the model that answered', () => {
    expect(parsed.text).toMatch(/^For a small agency, three CRMs/);
    expect(parsed.model).toBe('gpt-5-mini-2025-08-07');
    expect(parsed.usage).toMatchObject({ input_tokens: 8312, output_tokens: 612 });
  });

  it('turns url_citation annotations into citations whose span is the cited link', () => {
    expect(parsed.citations).toHaveLength(2);
    const [hubspot] = parsed.citations;
    expect(hubspot).toMatchObject({
      url: 'https://www.hubspot.com/products/crm?utm_source=openai',
      title: 'Free CRM Software | HubSpot',
      domain: 'hubspot.com',
    });
    expect(parsed.text.slice(hubspot?.startIndex, hubspot?.endIndex)).toBe(hubspot?.citedText);
    expect(hubspot?.citedText).toContain('hubspot.com');
  });

  it('takes searches from search actions only (query and queries), not open_page', () => {
    expect(parsed.searches).toEqual([
      'best CRM for small agencies 2025',
      'HubSpot vs Pipedrive agency',
      'Zoho CRM pricing',
    ]);
    expect(parsed.sources.map((s) => s.domain)).toEqual(['hubspot.com', 'g2.com']);
  });

  it('classifies refusals and failed responses', () => {
    expect(failure(() => parseOpenAIResponse(fixture('openai-refusal.json')))).toMatchObject({
      kind: 'permanent',
      reason: 'refusal',
    });
    expect(failure(() => parseOpenAIResponse(fixture('openai-failed.json')))).toMatchObject({
      kind: 'retryable',
      reason: 'server_error',
    });
    expect(failure(() => parseOpenAIResponse('<html>oops</html>'))).toMatchObject({
      kind: 'permanent',
      reason: 'malformed_response',
    });
  });
});

describe('Anthropic Messages parser', () => {
  const parsed = parseAnthropicMessage(fixture('anthropic-message.json'));

  it('joins the answer blocks and leaves out the announcement before the first search', () => {
    expect(parsed.text).toBe(
      'Based on the search results, HubSpot CRM is free to start and scales with paid Sales Hub tiers. Pipedrive is a close second for pipeline-focused teams.',
    );
    expect(parsed.model).toBe('claude-sonnet-4-5-20250929');
  });

  it('gives text block citations the span of their block', () => {
    expect(parsed.citations).toHaveLength(1);
    const c = parsed.citations[0];
    expect(c).toMatchObject({ url: 'https://www.hubspot.com/products/crm', domain: 'hubspot.com' });
    expect(parsed.text.slice(c?.startIndex, c?.endIndex)).toBe(
      'HubSpot CRM is free to start and scales with paid Sales Hub tiers',
    );
    expect(c?.citedText).toMatch(/^HubSpot's free CRM/);
  });

  it('reads searches from server_tool_use and pages from web_search_tool_result, skipping error results', () => {
    expect(parsed.searches).toEqual(['best CRM for small agencies', 'Pipedrive vs Zoho CRM agency']);
    expect(parsed.sources.map((s) => s.url)).toEqual([
      'https://www.hubspot.com/products/crm',
      'https://www.pipedrive.com/en/pricing',
    ]);
    expect(parsed.usage).toMatchObject({ server_tool_use: { web_search_requests: 2 } });
  });

  it('treats stop_reason refusal as a permanent refusal', () => {
    expect(failure(() => parseAnthropicMessage(fixture('anthropic-refusal.json')))).toMatchObject({
      kind: 'permanent',
      reason: 'refusal',
    });
  });
});

describe('Perplexity parser', () => {
  const parsed = parsePerplexityCompletion(fixture('perplexity-completion.json'));

  it('maps [n] markers to citations with the sentence they close', () => {
    const first = parsed.citations[0];
    expect(first).toMatchObject({ url: 'https://www.hubspot.com/products/crm', title: 'Free CRM Software | HubSpot' });
    expect(first?.citedText).toBe('For small agencies, HubSpot CRM is the most common pick thanks to its free tier');
    const pipedrive = parsed.citations.find((c) => c.domain === 'pipedrive.com');
    expect(pipedrive?.citedText).toBe('Pipedrive suits sales-led teams');
    const zoho = parsed.citations.filter((c) => c.domain === 'zoho.com');
    expect(zoho.map((c) => c.citedText)).toContain('Zoho CRM is the budget option');
  });

  it('keeps every cited URL, reports no searches (Sonar does not expose them), and the model', () => {
    expect(new Set(parsed.citations.map((c) => c.url)).size).toBe(3);
    expect(parsed.searches).toEqual([]);
    expect(parsed.model).toBe('sonar-pro');
  });

  it('strips <think> blocks of reasoning models and rejects empty answers', () => {
    const raw = {
      model: 'sonar-reasoning',
      citations: [],
      choices: [{ message: { content: '<think>plan</think>\nAnswer.' } }],
    };
    expect(parsePerplexityCompletion(raw).text).toBe('Answer.');
    expect(failure(() => parsePerplexityCompletion({ choices: [{ message: { content: '  ' } }] }))).toMatchObject({
      reason: 'empty_answer',
      kind: 'permanent',
    });
  });
});

describe('Gemini parser', () => {
  const parsed = parseGeminiResponse(fixture('gemini-response.json'));

  it('converts byte offsets of grounding supports into character spans', () => {
    const first = parsed.citations[0];
    expect(parsed.text.slice(first?.startIndex, first?.endIndex)).toBe(
      'Café Nero and Costa Coffee lead UK coffee chains by store count.',
    );
    const second = parsed.citations.find((c) => c.domain === 'yougov.co.uk');
    expect(parsed.text.slice(second?.startIndex, second?.endIndex)).toBe(
      'Pret A Manger is the favourite for lunch – according to YouGov.',
    );
  });

  it('keeps the redirect link but takes the source domain from the chunk title', () => {
    for (const c of parsed.citations.filter((x) => x.domain !== 'vertexaisearch.cloud.google.com'))
      expect(c.url).toMatch(/^https:\/\/vertexaisearch\.cloud\.google\.com\/grounding-api-redirect\//);
    expect(parsed.citations.map((c) => c.domain)).toEqual([
      'statista.com',
      'yougov.co.uk',
      'statista.com',
      'vertexaisearch.cloud.google.com',
    ]);
  });

  it('reads webSearchQueries, usage and model version', () => {
    expect(parsed.searches).toEqual(['largest UK coffee chains', 'favourite lunch chain UK YouGov']);
    expect(parsed.model).toBe('gemini-2.5-flash');
    expect(parsed.usage).toMatchObject({ totalTokenCount: 412 });
  });

  it('classifies blocked candidates and prompts as refusals', () => {
    expect(failure(() => parseGeminiResponse(fixture('gemini-blocked.json')))).toMatchObject({ reason: 'refusal' });
    expect(failure(() => parseGeminiResponse(fixture('gemini-prompt-blocked.json')))).toMatchObject({
      reason: 'refusal',
    });
  });

  it('charSpan maps UTF-8 byte offsets to string offsets', () => {
    expect(charSpan('é–x', 2, 5)).toEqual({ start: 1, end: 2 });
    expect(charSpan('abc', 0, undefined)).toEqual({ start: 0, end: 3 });
  });
});

describe('SERP parsers', () => {
  it('renders an inline AI Overview: paragraphs, headings, nested lists, expandables', () => {
    const parsed = parseSerpOverview({ search: fixture('serp-google-ai-overview.json') }, 'best crm for small agency');
    expect(parsed.text.split('\n')).toEqual([
      'The best CRM for a small agency is usually HubSpot, Pipedrive or Zoho CRM, depending on budget and sales process.',
      'Popular choices',
      '- HubSpot CRM: Free core CRM with marketing tools.',
      '- Pipedrive: Visual pipelines for sales-led teams.',
      '  - Plans start around $14 per user.',
      '- Zoho CRM: budget-friendly and customisable.',
      'Things to consider',
      'Check integrations with your project tools.',
    ]);
    expect(parsed.searches).toEqual(['best crm for small agency']);
    expect(parsed.model).toBe('ai-overview');
  });

  it('cites each referenced block with its span, then the references no block pointed at', () => {
    const parsed = parseSerpOverview({ search: fixture('serp-google-ai-overview.json') }, 'q');
    const g2 = parsed.citations.filter((c) => c.domain === 'g2.com');
    expect(g2.map((c) => parsed.text.slice(c.startIndex, c.endIndex))).toEqual([
      '- Pipedrive: Visual pipelines for sales-led teams.',
      '  - Plans start around $14 per user.',
    ]);
    expect(parsed.citations.at(-1)).toEqual({
      url: 'https://www.reddit.com/r/agency/comments/abc123/crm/',
      title: 'Agency CRM thread : r/agency',
      domain: 'reddit.com',
    });
  });

  it('reads the follow-up response when the overview needed a page_token', () => {
    const parsed = parseSerpOverview(
      { search: fixture('serp-google-page-token.json'), aiOverview: fixture('serp-ai-overview-followup.json') },
      'q',
    );
    expect(parsed.text).toMatch(/^The best CRM for a small agency/);
    expect(parsed.citations.map((c) => c.domain)).toEqual(['zapier.com', 'hubspot.com']);
  });

  it('treats a results page without an AI Overview as an empty answer', () => {
    expect(failure(() => parseSerpOverview({ search: fixture('serp-no-overview.json') }, 'acme login'))).toMatchObject({
      kind: 'permanent',
      reason: 'empty_answer',
    });
  });

  it('renders AI Mode text blocks and tables', () => {
    const parsed = parseSerpAiMode(fixture('serp-google-ai-mode.json'), 'best crm for small agency');
    expect(parsed.text).toBe(
      'For a small agency, HubSpot and Pipedrive are the usual shortlist.\nCRM | Free plan\nHubSpot | Yes\nPipedrive | No',
    );
    expect(parsed.citations.map((c) => c.domain)).toEqual([
      'hubspot.com',
      'g2.com',
      'g2.com',
      'g2.com',
      'g2.com',
      'youtube.com',
    ]);
    expect(parsed.model).toBe('ai-mode');
  });
});

describe('app gateway parser', () => {
  it('reads our answer object, with spans where given', () => {
    const parsed = parseAppAnswer(fixture('app-answer.json'), 'openai');
    expect(parsed.text).toBe('Top picks: HubSpot CRM, then Pipedrive.');
    expect(parsed.citations[0]).toMatchObject({
      domain: 'hubspot.com',
      startIndex: 11,
      endIndex: 22,
      citedText: 'HubSpot CRM',
    });
    expect(parsed.citations[1]?.startIndex).toBeUndefined();
    expect(parsed.searches).toEqual(['best crm small agency']);
  });

  it('maps failed and refused statuses to classified errors', () => {
    expect(
      failure(() => parseAppAnswer({ status: 'failed', error: { message: 'busy', retryable: true } }, 'openai')),
    ).toMatchObject({ kind: 'retryable' });
    expect(failure(() => parseAppAnswer({ status: 'refused', reason: 'policy' }, 'gemini'))).toMatchObject({
      kind: 'permanent',
      reason: 'refusal',
    });
  });
});
