import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/webhooks/event-types.ts';
import { openApiDocument } from '../../scripts/openapi.ts';

/**
 * The document's `webhooks` section (OpenAPI 3.1): one operation per event
 * type, whose request body is that event's named schema with `type` fixed to
 * it, and the Standard Webhooks headers, so a receiver can be generated typed.
 */

type Schema = { $ref?: string; properties?: Record<string, Schema>; const?: unknown; required?: string[] };
type Hook = {
  post: {
    operationId: string;
    security: unknown[];
    parameters: { name: string; in: string }[];
    requestBody: { content: { 'application/json': { schema: Schema } } };
  };
};

const doc = openApiDocument('AB') as unknown as {
  webhooks: Record<string, Hook>;
  components: { schemas: Record<string, Schema> };
};

describe('the OpenAPI webhooks section', () => {
  it('describes every event type with its own payload schema', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const op = doc.webhooks[type]?.post;
      const ref = op?.requestBody.content['application/json'].schema.$ref as string;
      const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')] as Schema;
      expect(schema.properties?.type?.const, type).toBe(type);
      expect(schema.required, type).toEqual(expect.arrayContaining(['type', 'timestamp', 'data']));
      expect(
        op?.parameters.map((p) => `${p.in}:${p.name}`),
        type,
      ).toEqual(['header:webhook-id', 'header:webhook-timestamp', 'header:webhook-signature']);
      expect(op?.security, type).toEqual([]);
    }
    expect(doc.webhooks['visibility.changed']?.post.operationId).toBe('onVisibilityChanged');
  });

  it('names the change events’ before and after with their 95% ranges and answer counts', () => {
    const ref = doc.webhooks['visibility.changed']?.post.requestBody.content['application/json'].schema.$ref as string;
    const data = doc.components.schemas[ref.replace('#/components/schemas/', '')]?.properties?.data as Schema;
    expect(Object.keys(data.properties ?? {})).toEqual(
      expect.arrayContaining(['projectId', 'comparison', 'before', 'after']),
    );
    expect(Object.keys(data.properties?.before?.properties ?? {})).toEqual(
      expect.arrayContaining(['value', 'low', 'high', 'answers']),
    );
  });
});
