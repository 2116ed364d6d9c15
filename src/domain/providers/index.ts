export * from './assistants.ts';
export * from './providers.ts';
export * from './responses.ts';
