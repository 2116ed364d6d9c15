import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../../fixtures/providers/', import.meta.url));

export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(`${dir}${name}`, 'utf8')) as unknown;
}

export function jsonl(name: string): Record<string, unknown>[] {
  return readFileSync(`${dir}${name}`, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
