/**
 * What a job's use case answers when it must wait (a provider batch not
 * ready, a delivery not yet due, its webhook's slots taken): come back in
 * `delayMs`. A value, not an exception: the job layer (jobs/) re-delays the
 * job without holding a worker slot, any other caller decides for itself.
 */
export class Later {
  readonly reason: string;
  readonly delayMs: number;
  constructor(reason: string, delayMs: number) {
    this.reason = reason;
    this.delayMs = delayMs;
  }
}
