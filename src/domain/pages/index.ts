export * from './discover.ts';
export * from './imports.ts';
export * from './pages.ts';
export * from './responses.ts';
export * from './sitemap-import.ts';
export * from './titles.ts';
