/** Display helpers. Money arrives as exact decimal strings and is shown as such, never through floats. */

export function usd(amount: string | null | undefined): string {
  if (amount === null || amount === undefined) return '—';
  const [whole = '0', fraction = ''] = amount.replace(/^-/, '').split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${amount.startsWith('-') ? '-' : ''}$${grouped}.${fraction.padEnd(2, '0')}`;
}

export const tokens = (n: number): string => n.toLocaleString('en-US');

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '—' : date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** A decimal-string amount as a number, for chart heights and meters only (never for sums shown as money). */
export const approx = (amount: string | null | undefined): number => (amount ? Number(amount) : 0);

/** The UTC date of an instant, for tight table cells. */
export const day = (iso: string | null | undefined): string => (iso ? when(iso).slice(0, 10) : '—');

/** Prompt tokens read from a vendor's cache as a share of all prompt tokens (docs/caching.md), one decimal; — when there were none. */
export const hitRate = (cached: number, prompt: number): string => (prompt > 0 ? `${((cached / prompt) * 100).toFixed(1)} %` : '—');
