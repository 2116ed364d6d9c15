import { compileBrandBook, type BrandBook, type BrandBookInput } from '../../analysis/index.ts';
import type { Db } from '../../db/database.ts';

/** What the brand book is compiled from, as a site and its competitors store it. */
export async function loadBrandBookInput(db: Db, siteId: number): Promise<BrandBookInput> {
  const [site, competitors] = await Promise.all([
    db
      .selectFrom('sites')
      .select(['name', 'brandTerms', 'domain', 'excludePhrases'])
      .where('id', '=', siteId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('competitors')
      .select(['id', 'name', 'aliases', 'domain', 'excludePhrases'])
      .where('siteId', '=', siteId)
      .orderBy('id')
      .execute(),
  ]);
  return {
    name: site.name,
    brandTerms: site.brandTerms,
    domain: site.domain,
    excludePhrases: site.excludePhrases,
    competitors,
  };
}

/** The site's current names as one compiled matcher (compileBrandBook caches by content). */
export async function loadBrandBook(db: Db, siteId: number): Promise<BrandBook> {
  return compileBrandBook(await loadBrandBookInput(db, siteId));
}
