export * from './new-site.ts';
