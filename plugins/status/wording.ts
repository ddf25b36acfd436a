/** How the status page words its figures. */

/** Uptime rounded down, so that a single failure never shows as 100 %. */
export function formatUptime(value: number | null): string {
  if (value === null) return 'no data';
  return `${(Math.floor(value * 10_000) / 100).toFixed(2)} %`;
}

export function formatMs(ms: number): string {
  if (ms >= 120_000) return '≥ 120 s';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
