import { html, SafeHtml } from '../../src/toolkit/routes.js';
import { HISTORY_DAYS, incidentDates, type Day, type LatencyPoint } from './history.js';
import type { IncidentJson, ModelStatus, StatusReport } from './report.js';
import { formatMs, formatUptime } from './wording.js';

/**
 * The status page's history, drawn without script: per model (and for all models) 90 daily
 * uptime bars — CSS, each with its date, uptime, requests and that day's incidents in a title
 * and an aria-label, the incident days marked in the worst impact's colour — and the last 24
 * hours' latency as an inline SVG sparkline (p50 solid, p95 dashed).
 */

/** Shown on narrow screens (the page's CSS hides the older bars below 40rem). */
export const PHONE_DAYS = 30;

const IMPACT_ORDER: ReadonlyArray<IncidentJson['impact']> = ['minor', 'major', 'critical'];

/** A bar's colour class by its uptime: the thresholds docs/operations.md gives. */
export function uptimeClass(uptime: number | null): string {
  if (uptime === null) return 'u-none';
  if (uptime >= 0.999) return 'u-good';
  if (uptime >= 0.99) return 'u-fair';
  if (uptime >= 0.95) return 'u-poor';
  return 'u-bad';
}

/** The id of a day's bar: `day-<date>` for all models, `day-<date>-<model>` for one. */
export const dayId = (date: string, model: string | null): string => (model === null ? `day-${date}` : `day-${date}-${model}`);

/** The incidents of each date, for one model (those naming it or no model) or, with `model` null, for all. */
function incidentsByDate(incidents: readonly IncidentJson[], model: string | null, until: string): Map<string, IncidentJson[]> {
  const byDate = new Map<string, IncidentJson[]>();
  for (const incident of incidents) {
    if (model !== null && incident.models.length > 0 && !incident.models.includes(model)) continue;
    for (const date of incidentDates(incident.started_at, incident.resolved_at, until)) byDate.set(date, [...(byDate.get(date) ?? []), incident]);
  }
  return byDate;
}

function bar(day: Day, model: string | null, incidents: readonly IncidentJson[]): SafeHtml {
  const figures = day.uptime === null ? `${day.date}: no data` : `${day.date}: ${formatUptime(day.uptime)} uptime, ${day.requests} requests`;
  const label = [figures, ...incidents.map((i) => `incident (${i.impact}): ${i.title}`)].join('; ');
  const worst = incidents.reduce<IncidentJson['impact'] | null>(
    (acc, i) => (acc === null || IMPACT_ORDER.indexOf(i.impact) > IMPACT_ORDER.indexOf(acc) ? i.impact : acc),
    null,
  );
  const classes = `${uptimeClass(day.uptime)}${worst ? ` inc inc-${worst}` : ''}`;
  return html`<li id="${dayId(day.date, model)}" class="${classes}" title="${label}" aria-label="${label}"></li>`;
}

function bars(days: readonly Day[], model: string | null, report: StatusReport): SafeHtml {
  const byDate = incidentsByDate(report.incidents, model, report.generated_at);
  return html`<ol class="days" aria-label="Daily uptime of ${model ?? 'all models'}, the last ${days.length} days">
      ${days.map((day) => bar(day, model, byDate.get(day.date) ?? []))}
    </ol>
    <div class="axis"><span class="long">${days.length} days ago</span><span class="short">${PHONE_DAYS} days ago</span><span>today</span></div>`;
}

const SPARK = { width: 240, height: 48, pad: 3 } as const;

interface Point {
  x: string;
  y: string;
}

/** The points of a line, in runs split where an hour has no value. */
function segments(points: readonly LatencyPoint[], pick: 'p50' | 'p95', max: number): Point[][] {
  const step = SPARK.width / points.length;
  const runs: Point[][] = [[]];
  points.forEach((point, i) => {
    const value = point[pick];
    const run = runs.at(-1) as Point[];
    if (value === null) {
      if (run.length > 0) runs.push([]);
      return;
    }
    const y = SPARK.height - SPARK.pad - (value / max) * (SPARK.height - 2 * SPARK.pad);
    run.push({ x: ((i + 0.5) * step).toFixed(1), y: y.toFixed(1) });
  });
  return runs.filter((run) => run.length > 0);
}

function line(points: readonly LatencyPoint[], pick: 'p50' | 'p95', max: number): SafeHtml[] {
  return segments(points, pick, max).map(([first, ...rest]) =>
    // A lone hour is a dot: a polyline of one point draws nothing.
    rest.length === 0
      ? html`<circle class="${pick}" cx="${first?.x}" cy="${first?.y}" r="1.5"></circle>`
      : html`<polyline class="${pick}" points="${[first, ...rest].map((p) => `${p?.x},${p?.y}`).join(' ')}" vector-effect="non-scaling-stroke"></polyline>`,
  );
}

function sparkline(model: ModelStatus): SafeHtml {
  const points = model.latency_24h;
  const p95s = points.flatMap((p) => (p.p95 === null ? [] : [p.p95]));
  const p50s = points.flatMap((p) => (p.p50 === null ? [] : [p.p50]));
  const summary = p50s.length
    ? `p50 ${formatMs(Math.min(...p50s))} to ${formatMs(Math.max(...p50s))}, p95 up to ${formatMs(Math.max(...p95s))}`
    : 'no successful requests';
  const label = `Latency of ${model.id} per hour, the last 24 hours: ${summary}`;
  const max = Math.max(1, ...p95s);
  return html`<figure class="spark">
    <svg viewBox="0 0 ${SPARK.width} ${SPARK.height}" preserveAspectRatio="none" role="img" aria-label="${label}">
      <title>${label}</title>
      <line class="base" x1="0" y1="${SPARK.height - 1}" x2="${SPARK.width}" y2="${SPARK.height - 1}" vector-effect="non-scaling-stroke"></line>
      ${line(points, 'p95', max)} ${line(points, 'p50', max)}
    </svg>
    <figcaption>24 h latency: ${summary}</figcaption>
  </figure>`;
}

/** The history section: all models first, then each model of the report. */
export function historySection(report: StatusReport): SafeHtml {
  return html`<section id="history">
    <div class="history" data-history="all">
      <h3>All models</h3>
      <div class="timeline">${bars(report.days, null, report)}</div>
    </div>
    ${report.models.map(
      (model) =>
        html`<div class="history" data-history="${model.id}">
          <h3>${model.id}</h3>
          <div class="timeline">${bars(model.days, model.id, report)}</div>
          ${sparkline(model)}
        </div>`,
    )}
  </section>`;
}

/** The day an incident's marks begin on, for the incident list's link: its start, or the history's first day if it began before. */
export function incidentLinks(incident: IncidentJson, until: string): SafeHtml {
  const date = incidentDates(incident.started_at, incident.resolved_at, until)[0] as string;
  const targets = incident.models.length
    ? incident.models.map((model) => ({ model, text: `${model}, ${date}` }))
    : [{ model: null, text: `all models, ${date}` }];
  return html`<p class="on-timeline">
    On the timeline: ${targets.map((target, i) => html`${i ? ' · ' : ''}<a href="#${dayId(date, target.model)}">${target.text}</a>`)}
  </p>`;
}

/** The history's CSS: a constant of this module, added to the page's style. */
export const HISTORY_STYLE = `
.history{margin:1rem 0 1.4rem}.history h3{font-size:1rem;margin:0 0 .3rem}
.days{display:flex;gap:2px;list-style:none;margin:0;padding:0 0 5px;height:2rem}
.days li{flex:1 1 0;min-width:0;border-radius:1px;background:#d0d7de;position:relative}
.days li.u-good{background:#1f883d}.days li.u-fair{background:#9bc93a}.days li.u-poor{background:#d1640d}.days li.u-bad{background:#cf222e}
.days li.inc::after{content:"";position:absolute;left:0;right:0;bottom:-5px;height:3px}
.days li.inc-minor::after{background:#bf8700}.days li.inc-major::after{background:#d1640d}.days li.inc-critical::after{background:#cf222e}
.days li:target{outline:2px solid #0969da;outline-offset:1px}
.axis{display:flex;justify-content:space-between;font-size:.75rem;color:#57606a}.axis .short{display:none}
.spark{margin:.4rem 0 0}.spark svg{display:block;width:100%;height:3rem}
.spark polyline{fill:none;stroke:#0969da;stroke-width:1.5}.spark polyline.p95{stroke:#8c959f;stroke-dasharray:3 2}
.spark circle.p50{fill:#0969da}.spark circle.p95{fill:#8c959f}.spark .base{stroke:#d0d7de}
.spark figcaption{font-size:.75rem;color:#57606a}
@media (min-width:48rem){.history{display:grid;grid-template-columns:minmax(0,1fr) 16rem;column-gap:1.5rem}.history h3{grid-column:1/-1}.spark{margin:0}}
@media (max-width:40rem){.days li:nth-child(-n+${HISTORY_DAYS - PHONE_DAYS}){display:none}.axis .long{display:none}.axis .short{display:inline}}`;
