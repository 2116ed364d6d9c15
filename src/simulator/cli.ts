import type { Config } from '../config.ts';
import { startSimulator } from './server.ts';

/**
 * `sightline simulator [--port 4010]`: runs until SIGINT/SIGTERM. Prints one
 * JSON line with its URL on stdout once listening, like the other commands.
 */
export async function runSimulatorCli(
  port: number,
  config?: Config,
  options: { seed?: number; jobDelayMs?: number } = {},
): Promise<void> {
  const host = config?.host ?? '127.0.0.1';
  // SIMULATOR_RPM: account limits from the start, e.g. `openai=1200` for the scale bench.
  const limits = config && Object.keys(config.simulatorRpm).length > 0 ? config.simulatorRpm : undefined;
  const sim = await startSimulator({ port, host, ...(limits && { limits }), ...options });
  process.stdout.write(
    `${JSON.stringify({ simulator: sim.url, prefixes: ['/openai/v1', '/anthropic', '/perplexity', '/gemini', '/serp', '/app'], limits: sim.state.limits.list() })}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void sim.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
