import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, isWellFormedKey } from '../../src/domain/orgs/api-keys.ts';
import { domainFromAddress } from '../../src/domain/sites/site-domain.ts';
import { atLeast, effectiveKeyRole } from '../../src/domain/orgs/roles.ts';
import { PLAN_LIMITS, limitsOf } from '../../src/domain/orgs/plans.ts';

describe('api key format', () => {
  it('is slk_ plus 40 url-safe characters, random each time', () => {
    const a = generateKey();
    expect(a).toMatch(/^slk_[A-Za-z0-9_-]{40}$/);
    expect(generateKey()).not.toBe(a);
    expect(isWellFormedKey(a)).toBe(true);
  });
  it.each([
    '',
    'slk_',
    `slk_${'a'.repeat(39)}`,
    `slk_${'a'.repeat(41)}`,
    `SLK_${'a'.repeat(40)}`,
    `slk_${'a'.repeat(39)}=`,
  ])('rejects %j', (k) => {
    expect(isWellFormedKey(k)).toBe(false);
  });
  it('hashes with SHA-256 hex', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('effective role', () => {
  it.each([
    ['admin', 'owner', 'admin'],
    ['admin', 'admin', 'admin'],
    ['admin', 'member', 'member'],
    ['admin', 'viewer', 'viewer'],
    ['viewer', 'owner', 'viewer'],
    ['member', 'admin', 'member'],
  ] as const)('key %s made by a now-%s person acts as %s', (key, creator, expected) => {
    expect(effectiveKeyRole(key, creator)).toBe(expected);
  });
  it('orders roles viewer < member < admin < owner', () => {
    expect(atLeast('member', 'viewer')).toBe(true);
    expect(atLeast('member', 'admin')).toBe(false);
    expect(atLeast('owner', 'admin')).toBe(true);
  });
});

describe('site domain', () => {
  it.each([
    ['acme.com', 'acme.com'],
    ['www.acme.com', 'acme.com'],
    ['https://www.acme.com/en/', 'acme.com'],
    ['HTTP://Shop.Acme.co.uk:8443/path?q=1', 'shop.acme.co.uk'],
    ['acme.com.', 'acme.com'],
    ['  acme.io  ', 'acme.io'],
  ])('%s -> %s', (input, domain) => {
    expect(domainFromAddress(input)).toBe(domain);
  });
  it.each([
    'localhost',
    '127.0.0.1',
    '10.0.0.1',
    '[::1]',
    'intranet',
    'acme.invalidtld',
    'mailto:a@acme.com',
    'ftp://acme.com',
    'acme .com',
    '',
  ])('%j is not a domain', (input) => {
    expect(domainFromAddress(input)).toBeNull();
  });
});

describe('plan limits', () => {
  it('match CONTRACT.md and take operator overrides', () => {
    expect(PLAN_LIMITS.free).toEqual({
      sites: 1,
      promptsPerSite: 25,
      scansPerMonth: 30,
      members: 2,
      rewritesPerDay: 100,
    });
    expect(PLAN_LIMITS.enterprise).toEqual({
      sites: 100,
      promptsPerSite: 5000,
      scansPerMonth: 100000,
      members: 200,
      rewritesPerDay: 20_000,
    });
    expect(
      limitsOf({
        plan: 'starter',
        limitSites: 9,
        limitPromptsPerSite: null,
        limitScansPerMonth: null,
        limitMembers: 0,
      }),
    ).toEqual({
      sites: 9,
      promptsPerSite: 150,
      scansPerMonth: 300,
      members: 0,
      rewritesPerDay: 600,
    });
  });
});
