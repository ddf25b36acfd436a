import type { StatusSample } from '../../plugins/status/store/status.js';

/** One model's minute as a flush writes it (every request a chat completion): past days written straight into the status store. */
export const statusSample = (model: string, minute: number, requests: number, failures: number, latency: Array<[number, number]> = []): StatusSample => ({
  model,
  minute,
  requests,
  failures,
  latency: new Map(latency),
  endpoints: new Map([['chat.completions', requests]]),
});
