/**
 * Why a fetch of a customer's site did not give a response to read. The
 * message is written for the customer: it ends up on an import or a check.
 *
 * - `refused`: the fetch guard would not connect (address, scheme, port, map);
 * - `timeout`: no connection or no complete answer in time;
 * - `too-large`: the answer passed its size cap;
 * - `redirects`: more redirects than allowed, or a redirect without a target;
 * - `network`: DNS, TCP, TLS or HTTP failed;
 * - `encoding`: a compressed answer that does not decompress.
 */
export type SiteFetchErrorKind = 'refused' | 'timeout' | 'too-large' | 'redirects' | 'network' | 'encoding';

export class SiteFetchError extends Error {
  readonly kind: SiteFetchErrorKind;
  readonly url: string;
  constructor(kind: SiteFetchErrorKind, url: string, message: string) {
    super(message);
    this.name = 'SiteFetchError';
    this.kind = kind;
    this.url = url;
  }
}
