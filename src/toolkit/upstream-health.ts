/**
 * The shared health of upstream deployments as an operator reads it: the log of cooldowns every
 * instance recorded in the store (src/upstreams/health-store/), kept a day. Used by the status
 * plugin's operator view.
 */

export type { CooldownEvent, CooldownLog } from '../upstreams/health-store/health-store.js';
export { COOLDOWN_EVENTS_KEPT_MS, openCooldownLog } from '../upstreams/health-store/index.js';
