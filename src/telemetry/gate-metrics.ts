import type { GateObserver } from '../assistants/upstream-gate.ts';
import { METRICS } from './metric-catalog.ts';
import type { MetricsRecorder } from './shared-metrics.ts';

/** The provider gate's calls as metrics: the wait for each account's rate and slots, and each call's outcome (429s among them). */
export function gateObserver(recorder: MetricsRecorder): GateObserver {
  return {
    waited: (upstream, seconds) => recorder.observe(METRICS.upstreamGateWait, { upstream }, seconds),
    called: (upstream, outcome) => recorder.count(METRICS.upstreamCalls, { upstream, outcome }),
  };
}
