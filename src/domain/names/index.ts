export * from './feedback.ts';
export * from './names.ts';
export * from './preview.ts';
export * from './responses.ts';
export * from './schemas.ts';
export * from './warnings.ts';
