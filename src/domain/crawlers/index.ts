export * from './checks.ts';
export * from './report.ts';
export * from './responses.ts';
export * from './run-check.ts';
