import { createHash } from 'node:crypto';
import { CSS_SOURCE } from './styles.ts';

/**
 * Response headers of the public pages. The token in the URL is the secret,
 * so nothing may carry it elsewhere (no referrer), index it, frame the page
 * or run code on it.
 */

/** The logo's origin when it is an http(s) URL; anything else is not drawn. */
export function logoOrigin(logo: string | null): string | null {
  if (!logo || !URL.canParse(logo)) return null;
  const url = new URL(logo);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
}

export function contentSecurityPolicy(imageOrigin: string | null): string {
  return [
    "default-src 'none'",
    `style-src ${CSS_SOURCE}`,
    `img-src ${imageOrigin ?? "'none'"}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function pageHeaders(options: {
  imageOrigin: string | null;
  cache: 'revalidate' | 'none';
}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(options.imageOrigin),
    'X-Robots-Tag': 'noindex, nofollow, noarchive',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    // Revalidated on every view, so a revoked link stops working at once even for a reader who had it open.
    'Cache-Control': options.cache === 'revalidate' ? 'private, no-cache' : 'no-store',
  };
}

export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

export const HTML_TYPE = 'text/html; charset=utf-8';
