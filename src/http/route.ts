import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { SiteRow } from '../db/schema.ts';
import type { Principal } from '../domain/orgs/index.ts';
import type { Logger } from '../logger.ts';
import type { Tag } from './tags.ts';

/**
 * One entry of the route table. Validation, the role check, scoping of ids
 * to the caller's workspace, variant checks, OpenAPI and the role-matrix
 * tests all read it; the handler's input is typed from the entry itself.
 */
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Lowest key role that may call, `public` for no key, `signed-in` for person-only actions (403 to every key). */
export type Access = 'public' | 'viewer' | 'member' | 'admin' | 'signed-in';

/** The spec's two variants (CONTRACT.md "Variants"); a deployment serves one or both. */
export type Variant = 'A' | 'B';

export type Reply =
  | { status?: number; body: unknown; headers?: Record<string, string> }
  | { status: 204; headers?: Record<string, string> }
  | { status?: number; raw: string | Buffer | Readable; contentType: string; headers?: Record<string, string> };

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * A body of another content type, beside the JSON one, that reaches the
 * handler as bytes (read up to the body limit): a gzip file. The handler
 * then gets `raw`, and `body` is undefined.
 */
export interface RawBodySpec {
  contentType: string;
  description: string;
}
type BodyOf<B, W> = W extends RawBodySpec ? Infer<B> | undefined : Infer<B>;

/**
 * What a route answers with one status (`responses` of the route):
 * - a zod schema: a JSON body, named in src/domain/<feature>/responses.ts;
 *   the handler's body is typed from it and the tests validate every such
 *   response against it;
 * - `{ contentType, description }`: another body (CSV, HTML, Prometheus
 *   text), or JSON the handler does not build (`schema` then describes it
 *   and the tests check it); the handler may return any reply;
 * - `{ description }` alone: no body (204, 304);
 * - a string: a refusal particular to this route (402, 409, 429...), in the
 *   error envelope; the document adds the refusals every route shares.
 */
export type ResponseSpec = z.ZodType | { description: string; contentType?: string; schema?: z.ZodType } | string;
export type Responses = { readonly [status: number]: ResponseSpec };

type ReplyOf<S> = S extends z.ZodType
  ? { status?: number; body: z.input<S>; headers?: Record<string, string> }
  : S extends { contentType: string }
    ? Reply
    : S extends { description: string }
      ? { status: number; headers?: Record<string, string> }
      : never;
/** The replies a handler may return: one per declared response (any reply when the route declares none). */
export type HandlerReply<R> = R extends Responses ? ReplyOf<R[keyof R]> : Reply;

/** The `:name` parameters of a path, as a union. */
type PathParams<P extends string> = P extends `${string}:${infer Param}/${infer Rest}`
  ? Param | PathParams<`/${Rest}`>
  : P extends `${string}:${infer Param}`
    ? Param
    : never;
type IdParam<S> = S extends 'id' | `${string}Id` ? S : never;

/** Numeric path ids (`id`, `orgId`, `...Id`) of a path, checked by the server to be positive 32-bit integers. */
export type PathIds<P extends string> = { [K in IdParam<PathParams<P>>]: number };

/** Path parameters that are not ids (`:token`), as sent (decoded); the handler decides what a well-formed one is. */
export type PathText<P extends string> = { [K in Exclude<PathParams<P>, IdParam<PathParams<P>>>]: string };

/** Routes under `/projects/:id` get the site, looked up inside the caller's workspace. */
export const isSitePath = (path: string) => path === '/projects/:id' || path.startsWith('/projects/:id/');
type SiteOf<P extends string> = P extends '/projects/:id' | `/projects/:id/${string}` ? SiteRow : null;

type PrincipalOf<A extends Access> = A extends 'public' ? null : Principal;

export interface HandlerInput<P extends string, A extends Access, B, Q> {
  ctx: AppContext;
  principal: PrincipalOf<A>;
  ids: PathIds<P>;
  params: PathText<P>;
  site: SiteOf<P>;
  body: B;
  query: Q;
  req: IncomingMessage;
  log: Logger;
  requestId: string;
  /** The body as bytes, when it came as the route's `rawBody` type. */
  raw?: Buffer;
}

type BodyFields<B> = B extends z.ZodType ? keyof z.input<B> & string : never;

/**
 * The route as an MCP tool (src/mcp): its tool name (snake_case) and what is
 * said to the agent before the route's summary; or why a keyed read route has
 * no tool.
 */
export type McpSpec = { tool: string; lead?: string } | { none: string };

export interface RouteSpec<
  P extends string,
  A extends Access,
  B extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  R extends Responses | undefined,
  W extends RawBodySpec | undefined = undefined,
> {
  method: Method;
  path: P;
  /** A route's identity beside its path: what a generated client calls it (OpenAPI operationId) and its OpenAPI tag. Every route the document shows has both. */
  operationId?: string;
  tag?: Tag;
  mcp?: McpSpec;
  summary: string;
  access: A;
  /** The route exists only on deployments serving this variant (others answer 404). */
  variant?: Variant;
  /** Body fields that only one variant has: sent to a deployment without it, they are a 422 on that field. */
  variantFields?: Partial<Record<BodyFields<B>, Variant>>;
  body?: B;
  /** A non-JSON body the route also takes (see RawBodySpec). */
  rawBody?: W;
  query?: Q;
  /** What it answers, by status: success bodies and its own refusals (see ResponseSpec). `{}` for a route that never succeeds. */
  responses?: R;
  /** A valid body: shown in OpenAPI and used by the role-matrix tests. */
  example?: B extends z.ZodType ? z.input<B> : never;
  handler: (input: HandlerInput<P, A, BodyOf<B, W>, Infer<Q>>) => Promise<HandlerReply<R>> | HandlerReply<R>;
}

/** A table entry with its types erased, as the server, OpenAPI and the tests read it. */
export interface Route {
  method: Method;
  path: string;
  operationId?: string;
  tag?: Tag;
  mcp?: McpSpec;
  summary: string;
  access: Access;
  variant?: Variant;
  variantFields?: Partial<Record<string, Variant>>;
  body?: z.ZodType;
  rawBody?: RawBodySpec;
  query?: z.ZodType;
  responses?: Responses;
  example?: unknown;
  handler: (input: ServerInput) => Promise<Reply> | Reply;
}

/** What the server hands every handler, before a route's own types narrow it. */
export interface ServerInput {
  ctx: AppContext;
  principal: Principal | null;
  ids: Record<string, number>;
  params: Record<string, string>;
  site: SiteRow | null;
  body: unknown;
  query: unknown;
  req: IncomingMessage;
  log: Logger;
  requestId: string;
  raw?: Buffer;
}

export function defineRoute<
  const P extends string,
  const A extends Access,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  const R extends Responses | undefined = undefined,
  const W extends RawBodySpec | undefined = undefined,
>(spec: RouteSpec<P, A, B, Q, R, W>): Route {
  // The server hands each handler the input its spec declares (ids from its path, a site under /projects/:id,
  // a principal unless public), which the erased table type cannot express.
  return spec as unknown as Route;
}

export const json = <const T>(body: T, status = 200) => ({ status, body });
export const noContent = () => ({ status: 204 as const });
