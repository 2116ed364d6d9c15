export * from './log-imports.ts';
export * from './ranges.ts';
export * from './report.ts';
export * from './responses.ts';
export * from './run-import.ts';
export * from './schemas.ts';
export * from './store.ts';
