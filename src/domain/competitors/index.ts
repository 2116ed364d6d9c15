export * from './competitors.ts';
export * from './responses.ts';
export * from './schemas.ts';
