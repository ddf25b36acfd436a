import { rssKiB } from './lib/processes.js';
import type { Bench } from './lib/setup.js';
import { CLOSED_LOOP_SCENARIOS, requestFor } from './lib/workload.js';
import { failureCount, type OpenLoopResult } from './load/protocol.js';

/**
 * The memory soak: the gateway under a steady open-loop rate for a long time, gamma streamed
 * and non-streamed in turn, its resident set (VmRSS) sampled at a fixed interval. Growth is
 * read between an early sample (after the start-up and warm-up allocations) and the last.
 */

export interface SoakSettings {
  durationS: number;
  sampleS: number;
  rate: number;
  /** When growth is measured from (the issue: minute 2 of 10). */
  fromS: number;
}

export interface SoakSample {
  atS: number;
  rssKiB: number;
}

const meanRss = (list: SoakSample[]): number => list.reduce((sum, s) => sum + s.rssKiB, 0) / list.length;

/** Growth above which the soak misses the issue's target. */
export const MAX_GROWTH = 0.1;

export async function soak(bench: Bench, settings: SoakSettings, progress: (line: string) => void): Promise<{ lines: string[]; failed: number }> {
  const gateway = bench.gateways[0];
  if (!gateway) throw new Error('bench: the soak needs a gateway');
  const pid = gateway.process.pid;
  const requests = CLOSED_LOOP_SCENARIOS.filter((s) => s.family === 'gamma').map((s) => requestFor(s, gateway.target, bench.origins));
  const samples: SoakSample[] = [];
  const started = Date.now();
  const sample = (): void => {
    const atS = Math.round((Date.now() - started) / 1000);
    const rss = rssKiB(pid);
    if (rss === null) return;
    samples.push({ atS, rssKiB: rss });
    progress(`soak ${atS} s: gateway RSS ${(rss / 1024).toFixed(1)} MiB`);
  };
  sample();
  const timer = setInterval(sample, settings.sampleS * 1000);
  let result: OpenLoopResult;
  try {
    result = await bench.load.run<OpenLoopResult>({ type: 'open', requests, rate: settings.rate, durationS: settings.durationS });
  } finally {
    clearInterval(timer);
  }
  bench.group.assertAlive();
  if ((samples[samples.length - 1]?.atS ?? 0) < settings.durationS) sample();

  const mib = (kib: number | undefined): string => (kib !== undefined && Number.isFinite(kib) ? (kib / 1024).toFixed(1) : '—');
  const first = samples[0];
  const from = samples.find((s) => s.atS >= settings.fromS);
  const last = samples[samples.length - 1];
  const growth = from && last ? (last.rssKiB - from.rssKiB) / from.rssKiB : NaN;
  // Single samples ride the garbage collector's sawtooth; means over a window are steadier.
  const windowS = settings.fromS;
  const early = meanRss(samples.filter((s) => s.atS >= settings.fromS && s.atS <= settings.fromS + windowS));
  const late = meanRss(samples.filter((s) => s.atS >= settings.durationS - windowS));
  const failed = failureCount(result.failures);
  const lines = [
    `Soak: ${settings.durationS} s at ${settings.rate} requests/s (open loop, evenly spaced), gamma streamed and non-streamed in turn: ${result.sent} requests`,
    `Gateway RSS (VmRSS, MiB): start ${mib(first?.rssKiB)}, at ${from?.atS ?? '—'} s ${mib(from?.rssKiB)}, at ${last?.atS ?? '—'} s ${mib(last?.rssKiB)}`,
    `Growth from ${from?.atS ?? '—'} s to ${last?.atS ?? '—'} s: ${Number.isFinite(growth) ? `${(growth * 100).toFixed(1)} %` : '—'} (target ≤ ${MAX_GROWTH * 100} %) ${growth <= MAX_GROWTH ? 'met' : 'MISSED'}`,
    `Mean RSS ${settings.fromS}–${settings.fromS + windowS} s ${mib(early)}, last ${windowS} s ${mib(late)}: ${Number.isFinite(early) ? `${(((late - early) / early) * 100).toFixed(1)} %` : '—'}`,
    `Samples every ${settings.sampleS} s: ${samples.map((s) => `${s.atS}s ${mib(s.rssKiB)}`).join(', ')}`,
    `Latency request → last byte: p50 ${result.total.p50.toFixed(2)} ms, p99 ${result.total.p99.toFixed(2)} ms; generator lateness p99 ${result.lateP99.toFixed(2)} ms`,
    failed
      ? `!!! ERRORS: ${failed} of ${result.sent} requests failed (socket ${result.failures.socket}, timeouts ${result.failures.timeouts}, non-200 ${result.failures.non200}, wrong ${result.failures.wrong}) !!!\n    first: ${result.failures.first ?? '?'}`
      : `Errors: none (${result.ok} answers checked).`,
  ];
  return { lines, failed };
}
