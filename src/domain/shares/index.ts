export * from './responses.ts';
export * from './schemas.ts';
export * from './shared-report.ts';
export * from './shares.ts';
export * from './share-tokens.ts';
