/** Public surface of the assistants layer. */
export { createAssistants, type AssistantsOptions } from './assistants.ts';
export {
  AssistantError,
  parseRetryAfter,
  type AssistantErrorKind,
  type AssistantErrorReason,
} from './assistant-error.ts';
export {
  createRedisGate,
  DEFAULT_LIMITS,
  resolveLimits,
  type GateCapacity,
  type UpstreamGate,
  type UpstreamLimits,
} from './upstream-gate.ts';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
export { MAX_ANSWER_BYTES, storedRaw, StoredRaw } from './truncate.ts';
export { resolveCountry, resolveLanguage } from './locales.ts';
export type {
  AnswerTarget,
  Assistants,
  AskRequest,
  AskResult,
  BatchHandle,
  BatchItemResult,
  BatchPoll,
  BatchRequest,
  CallOptions,
  Citation,
  ParsedAnswer,
  Source,
  UpstreamKey,
} from './types.ts';
