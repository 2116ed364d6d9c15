/** Lenient readers for request bodies: the simulator answers whatever a client sends. */

export type Obj = Record<string, unknown>;

export function obj(value: unknown): Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function s(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Text of a message content: a string, or blocks/parts with `text`. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map((part) => s(obj(part).text) ?? '')
    .filter(Boolean)
    .join('\n');
}
