import { NoResultError, type SelectQueryNode } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ServiceUnavailableError, knownError } from '../../src/errors.ts';

/** Errors from the driver and the query builder that have a meaning for the client, known by shape. */
describe('knownError', () => {
  it("takes Kysely's NoResultError (a row a concurrent request removed) for a 404", () => {
    const err = new NoResultError({ kind: 'SelectQueryNode' } as SelectQueryNode);
    expect(err.name).toBe('Error');
    expect(knownError(err)).toBeInstanceOf(NotFoundError);
  });

  it('takes a unique violation and a deadlock for 409, a lost connection and a statement timeout for 503', () => {
    expect(knownError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeInstanceOf(ConflictError);
    expect(knownError(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBeInstanceOf(ConflictError);
    expect(knownError(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBeInstanceOf(
      ServiceUnavailableError,
    );
    expect(
      knownError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })),
    ).toBeInstanceOf(ServiceUnavailableError);
  });

  it('leaves anything else to be a logged 500', () => {
    expect(knownError(new TypeError('x is undefined'))).toBeNull();
    expect(knownError(Object.assign(new Error('syntax error'), { code: '42601' }))).toBeNull();
  });
});
