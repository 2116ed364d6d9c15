import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { SiteRow } from '../db/schema.ts';
import type { Principal } from '../domain/workspace/auth.ts';
import type { Logger } from '../logger.ts';

/**
 * One entry of the route table. Validation, the role check, scoping of ids
 * to the caller's workspace, OpenAPI and the role-matrix tests all read it.
 */
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Lowest key role that may call, `public` for no key, `signed-in` for person-only actions (403 to every key). */
export type Access = 'public' | 'viewer' | 'member' | 'admin' | 'signed-in';

export type Variant = 'A' | 'B';

export type Reply =
  | { status?: number; body: unknown; headers?: Record<string, string> }
  | { status: 204; headers?: Record<string, string> }
  | { status?: number; raw: string | Buffer | Readable; contentType: string; headers?: Record<string, string> };

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface HandlerInput<B, Q> {
  ctx: AppContext;
  /** Null only on public routes. */
  principal: Principal;
  params: Record<string, string>;
  /** Numeric path ids (`id`, `orgId`, `...Id`), already checked to be positive integers. */
  ids: Record<string, number>;
  /** The `/projects/:id` site, looked up inside the caller's workspace. */
  site: SiteRow | null;
  body: B;
  query: Q;
  req: IncomingMessage;
  log: Logger;
  requestId: string;
}

export interface RouteSpec<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  method: Method;
  path: string;
  summary: string;
  access: Access;
  variant?: Variant;
  body?: B;
  query?: Q;
  /** Response description for the OpenAPI document. */
  responds?: string;
  /** A valid body: shown in OpenAPI and used by the role-matrix tests. */
  example?: B extends z.ZodType ? z.input<B> : never;
  handler: (input: HandlerInput<Infer<B>, Infer<Q>>) => Promise<Reply> | Reply;
}

export interface Route {
  method: Method;
  path: string;
  summary: string;
  access: Access;
  variant?: Variant;
  body?: z.ZodType;
  query?: z.ZodType;
  responds?: string;
  example?: unknown;
  handler: (input: HandlerInput<unknown, unknown>) => Promise<Reply> | Reply;
}

export function defineRoute<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(spec: RouteSpec<B, Q>): Route {
  return spec as unknown as Route;
}

export const json = (body: unknown, status = 200): Reply => ({ status, body });
export const noContent = (): Reply => ({ status: 204 });
