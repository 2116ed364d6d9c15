export * from './delete.ts';
export * from './events.ts';
export * from './responses.ts';
export * from './schemas.ts';
export * from './site-domain.ts';
export * from './sites.ts';
