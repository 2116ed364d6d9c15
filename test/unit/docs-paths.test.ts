import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The map must not drift from the tree: every repository path that
 * README.md, docs/*.md, a folder's README.md or a source comment names in
 * backticks (or, in a comment, as a path under src/, docs/, jobs/ or test/)
 * names a file or folder that exists.
 */
const ROOT = path.resolve('.');
const TOP = /^(src|docs|test|jobs|bench|scripts|migrations|ops|examples|bin)\//;
const UNDER_SRC =
  /^(domain|http|mcp|cli|queue|analysis|assistants|simulator|web|logs|share|telemetry|db|fixture-site)\//;

function walk(dir: string, keep: (f: string) => boolean): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((d) => {
    const rel = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' || d.name === 'fixtures' ? [] : walk(rel, keep);
    return keep(rel) ? [rel] : [];
  });
}

const looksLikePath = (t: string) =>
  /^[\w./-]+$/.test(t) && !t.startsWith('../') && !/^\.?\//.test(t) && /\.[a-z]{2,4}$|\/$/.test(t);

/** Where a path may be meant from: the repository root, src/, or the folder of the file that names it. */
function exists(token: string, from: string): boolean {
  const bare = token.replace(/\/$/, '');
  const candidates = [bare];
  if (UNDER_SRC.test(token)) candidates.push(`src/${bare}`);
  candidates.push(path.join(path.dirname(from), bare));
  return candidates.some((c) => existsSync(path.join(ROOT, c)));
}

function checked(token: string, from: string): boolean {
  if (!looksLikePath(token)) return false;
  if (TOP.test(token) || UNDER_SRC.test(token)) return true;
  // A bare file name counts only in a folder's own README, where it names a file beside it.
  return from.startsWith('src/') && from.endsWith('README.md') && !token.includes('/');
}

function stale(): string[] {
  const out: string[] = [];
  const markdown = [
    'README.md',
    ...walk('docs', (f) => f.endsWith('.md')),
    ...walk('src', (f) => f.endsWith('README.md')),
  ];
  for (const file of markdown) {
    for (const m of readFileSync(path.join(ROOT, file), 'utf8').matchAll(/`([^`\n]+)`/g)) {
      const token = m[1]!.trim();
      if (checked(token, file) && !exists(token, file)) out.push(`${file}: \`${token}\``);
    }
  }
  const code = [...walk('src', (f) => f.endsWith('.ts')), ...walk('jobs', (f) => f.endsWith('.ts'))];
  for (const file of code) {
    for (const line of readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
      const comment = /^\s*(\/\/|\/?\*)/.test(line) ? line : (line.match(/\s\/\/\s.*$/)?.[0] ?? '');
      for (const m of comment.matchAll(
        /(?:^|[\s(`'"])((?:src|docs|jobs|test|domain)\/[\w./-]*\.(?:ts|md|json|sql))/g,
      )) {
        const token = m[1]!;
        if (!exists(token, file)) out.push(`${file}: ${token}`);
      }
    }
  }
  return out;
}

describe('paths named in the docs and comments', () => {
  it('all exist', () => {
    expect(stale()).toEqual([]);
  });
});
