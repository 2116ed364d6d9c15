export * from './doctor.ts';
export * from './operations.ts';
export * from './readiness.ts';
export * from './responses.ts';
