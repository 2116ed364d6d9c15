export * from './personas.ts';
export * from './responses.ts';
