/** The offline assistant simulator. */
export { startSimulator, type Simulator, type SimulatorOptions } from './server.ts';
export { runSimulatorCli } from './cli.ts';
export { SIM_BRANDS } from './words.ts';
export { scriptSchema, type ScriptInput } from './script.ts';
