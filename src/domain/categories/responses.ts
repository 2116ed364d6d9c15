import { z } from 'zod';
import { count, dateTime, id, named, paging } from '../common/index.ts';

/** Response schemas of prompt categories (see src/domain/common/responses.ts). */

export const category = named(
  'Category',
  'A prompt category with its number of prompts',
  z.object({ id, name: z.string(), promptCount: count, createdAt: dateTime }),
);

export const categoryList = named(
  'CategoryList',
  'The project’s categories, by name, a page at a time',
  z.object({ categories: z.array(category), ...paging }),
);

export const categoryResponse = named('CategoryResponse', 'The category', z.object({ category }));

export const categoryMerge = named(
  'CategoryMerge',
  'The resulting category (null when removed), the names folded into it or removed, and the prompts they held',
  z.object({ category: category.nullable(), removed: z.array(z.string()), prompts: count }),
);
