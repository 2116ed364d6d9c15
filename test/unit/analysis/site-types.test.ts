import { describe, expect, it } from 'vitest';
import { siteTypeOf } from '../../../src/analysis/index.ts';
import { KNOWN_SITE_COUNT } from '../../../src/analysis/site-types.ts';

describe('site types', () => {
  it('knows at least 300 domains', () => {
    expect(KNOWN_SITE_COUNT).toBeGreaterThanOrEqual(300);
  });

  it.each([
    ['reddit.com', 'ugc'],
    ['quora.com', 'ugc'],
    ['stackoverflow.com', 'ugc'],
    ['news.ycombinator.com', 'ugc'],
    ['medium.com', 'ugc'],
    ['g2.com', 'review'],
    ['capterra.com', 'review'],
    ['trustpilot.com', 'review'],
    ['yelp.com', 'review'],
    ['tripadvisor.com', 'review'],
    ['nytimes.com', 'news'],
    ['reuters.com', 'news'],
    ['techcrunch.com', 'news'],
    ['bbc.co.uk', 'news'],
    ['forbes.com', 'news'],
    ['wikipedia.org', 'reference'],
    ['britannica.com', 'reference'],
    ['investopedia.com', 'reference'],
    ['linkedin.com', 'social'],
    ['x.com', 'social'],
    ['facebook.com', 'social'],
    ['instagram.com', 'social'],
    ['youtube.com', 'video'],
    ['youtu.be', 'video'],
    ['vimeo.com', 'video'],
    ['twitch.tv', 'video'],
    ['example.org', 'other'],
    ['acme.com', 'other'],
  ])('%s is %s', (host, kind) => {
    expect(siteTypeOf(host)).toBe(kind);
  });

  it.each([
    ['subdomain takes its parent type', 'en.wikipedia.org', 'reference'],
    ['mobile subdomain', 'm.youtube.com', 'video'],
    ['deep subdomain', 'old.reddit.com', 'ugc'],
    ['more specific entry wins', 'news.ycombinator.com', 'ugc'],
    ['unknown subdomain of unknown site', 'blog.example.org', 'other'],
    ['look-alike is not the site', 'notreddit.com', 'other'],
    ['known name under another suffix', 'reddit.com.evil.io', 'other'],
  ])('%s', (_rule, host, kind) => {
    expect(siteTypeOf(host)).toBe(kind);
  });
});
