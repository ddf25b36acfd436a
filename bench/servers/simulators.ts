import { createAlphaSimulator } from '../../plugins/vendor-alpha/simulator.js';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import { stopOnSignal } from './lifecycle.js';

/**
 * The upstream of the bench, in a process of its own: the gamma and alpha simulators with no
 * delay between streamed frames and no credential check. Tells the parent its origins over IPC.
 */

export interface SimulatorOrigins {
  gamma: string;
  alpha: string;
}

const gamma = createGammaSimulator({ chunkDelayMs: 0 });
const alpha = createAlphaSimulator({ chunkDelayMs: 0 });
const origins: SimulatorOrigins = { gamma: await gamma.listen(0, '127.0.0.1'), alpha: await alpha.listen(0, '127.0.0.1') };
stopOnSignal(() => Promise.all([gamma.close(), alpha.close()]));
process.send?.(origins);
