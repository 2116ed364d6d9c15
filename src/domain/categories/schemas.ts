import { text } from '../common/index.ts';

/** Request rules of a category's name, shared by categories and the prompts that name them. */

export const CATEGORY_NAME_MAX = 100;

/** They separate categories in one CSV cell, so a name holding one could not survive an export and import. */
export const CATEGORY_SEPARATORS = /[;|]/;
export const CATEGORY_SEPARATOR_MESSAGE =
  'a category name cannot contain ; or | (they separate categories in CSV files)';

export const categoryNameSchema = text('a category name', CATEGORY_NAME_MAX).refine(
  (n) => !CATEGORY_SEPARATORS.test(n),
  CATEGORY_SEPARATOR_MESSAGE,
);
