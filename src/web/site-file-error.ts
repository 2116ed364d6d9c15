/**
 * A file from a customer's site (robots.txt, llms.txt, a sitemap, a page)
 * that could not be read within its parsing thread's limits. The message is
 * written for the customer; it ends up on the import or the check.
 *
 * - `timeout`: the parse ran past its deadline (SITE_PARSE_TIMEOUT_MS) and its thread was stopped;
 * - `memory`: the parse needed more memory than a parsing thread has, and its thread was stopped.
 */
export type SiteFileErrorKind = 'timeout' | 'memory';

export class SiteFileError extends Error {
  readonly kind: SiteFileErrorKind;
  /** What was being read, as the customer knows it: "robots.txt", a sitemap's URL. */
  readonly file: string;
  constructor(kind: SiteFileErrorKind, file: string, message: string) {
    super(message);
    this.name = 'SiteFileError';
    this.kind = kind;
    this.file = file;
  }
}
