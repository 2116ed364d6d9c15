export * from './reanalysis.ts';
export * from './responses.ts';
