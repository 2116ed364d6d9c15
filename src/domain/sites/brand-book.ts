import { compileBrandBook, type BrandBook } from '../../analysis/index.ts';
import type { Db } from '../../db/database.ts';

/** The site's current names as one compiled matcher (compileBrandBook caches by content). */
export async function loadBrandBook(db: Db, siteId: number): Promise<BrandBook> {
  const [site, competitors] = await Promise.all([
    db.selectFrom('sites').select(['name', 'brandTerms', 'domain']).where('id', '=', siteId).executeTakeFirstOrThrow(),
    db.selectFrom('competitors').select(['id', 'name', 'aliases', 'domain']).where('siteId', '=', siteId).orderBy('id').execute(),
  ]);
  return compileBrandBook({ name: site.name, brandTerms: site.brandTerms, domain: site.domain, competitors });
}
