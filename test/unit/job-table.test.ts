import { describe, expect, it } from 'vitest';
import { JOBS } from '../../jobs/index.ts';
import { JOB_PAYLOADS } from '../../src/domain/common/index.ts';

/**
 * The context queues by the shared vocabulary's payload map, the workers by
 * the table: both must name the same jobs with the very same schemas. The
 * table's type holds a row to its name's schema where shapes differ; this
 * holds it where two jobs' payloads look alike (the ticks, the imports).
 */
describe('the job table', () => {
  it('has a row for every payload name and none other', () => {
    expect(Object.keys(JOBS).sort()).toEqual(Object.keys(JOB_PAYLOADS).sort());
  });

  it.each(Object.keys(JOB_PAYLOADS) as (keyof typeof JOB_PAYLOADS)[])(
    "validates %s's payload with its name's schema",
    (name) => {
      expect(JOBS[name].payload).toBe(JOB_PAYLOADS[name]);
    },
  );
});
