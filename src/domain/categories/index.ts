export * from './categories.ts';
export * from './responses.ts';
export * from './schemas.ts';
