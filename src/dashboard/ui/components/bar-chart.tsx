/**
 * A small accessible SVG bar chart: one bar per label, the value on hover (title) and a
 * screen-reader summary. Sized by attributes only, so the strict CSP (no inline styles) holds.
 */
export interface Bar {
  label: string;
  value: number;
  /** What the hover title and the summary say, e.g. "$1.50". */
  text: string;
}

export function BarChart({ bars, title }: { bars: Bar[]; title: string }) {
  const width = 720;
  const height = 200;
  const gap = 2;
  const max = Math.max(...bars.map((b) => b.value), 0);
  const barWidth = bars.length ? (width - gap * bars.length) / bars.length : 0;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-label={title} preserveAspectRatio="none">
        <title>{title}</title>
        {bars.map((bar, i) => {
          const h = max > 0 ? Math.max((bar.value / max) * height, bar.value > 0 ? 1 : 0) : 0;
          return (
            <g key={bar.label}>
              <rect class="bar" x={i * (barWidth + gap)} y={height - h} width={barWidth} height={h}>
                <title>{`${bar.label}: ${bar.text}`}</title>
              </rect>
              {i % Math.max(1, Math.ceil(bars.length / 6)) === 0 && (
                <text class="axis" x={i * (barWidth + gap)} y={height + 16}>
                  {bar.label.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="visually-hidden">
        {title}: {bars.map((b) => `${b.label} ${b.text}`).join(', ')}
      </figcaption>
    </figure>
  );
}
