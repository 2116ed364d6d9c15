export * from './upstreams.ts';
export * from './providers.ts';
export * from './responses.ts';
