import { html, SafeHtml } from '../../src/toolkit/routes.js';
import { HISTORY_STYLE, historySection, incidentLinks } from './history-page.js';
import { STATE_TEXT, WINDOWS, type IncidentJson, type ModelStatus, type StatusReport, type Uptime } from './report.js';
import { formatMs, formatUptime } from './wording.js';

/** The public status page: server-rendered HTML (no script), every value escaped. */

const when = (isoTime: string | null): SafeHtml | string =>
  isoTime ? html`<time datetime="${isoTime}">${isoTime.slice(0, 16).replace('T', ' ')} UTC</time>` : '';

const uptimeCells = (uptime: Uptime): SafeHtml[] => WINDOWS.map((w) => html`<td class="uptime uptime-${w.name}">${formatUptime(uptime[w.name])}</td>`);

/** A model's 24 h requests by endpoint, compact: "chat.completions 3 · responses 1" ("—" without calls). */
export function endpointsText(counts: Readonly<Record<string, number>>): string {
  const parts = Object.entries(counts).map(([endpoint, requests]) => `${endpoint} ${requests}`);
  return parts.length ? parts.join(' · ') : '—';
}

function modelRow(model: ModelStatus): SafeHtml {
  const latency = model.latency_ms;
  const cell = (name: 'p50' | 'p95' | 'p99'): SafeHtml => html`<td class="${name}">${latency ? formatMs(latency[name]) : '—'}</td>`;
  return html`<tr data-model="${model.id}">
    <th scope="row">${model.id}${model.simulated ? html` <span class="tag">simulator</span>` : ''}</th>
    <td>${model.family}</td>
    <td class="state state-${model.state}">${STATE_TEXT[model.state]}</td>
    ${uptimeCells(model.uptime)} ${cell('p50')}${cell('p95')}${cell('p99')}
    <td class="requests">${model.requests_24h}</td>
    <td class="endpoints">${endpointsText(model.requests_24h_by_endpoint)}</td>
  </tr>`;
}

function incidentArticle(incident: IncidentJson, until: string): SafeHtml {
  return html`<article class="incident ${incident.resolved_at ? 'resolved' : 'open'}" data-incident="${incident.id}">
    <h3>${incident.title}</h3>
    <p class="meta">
      <span class="badge status-${incident.status}">${incident.status}</span>
      <span class="impact">impact: ${incident.impact}</span>
      · ${incident.models.length ? incident.models.join(', ') : 'all models'} · started
      ${when(incident.started_at)}${incident.resolved_at ? html` · resolved ${when(incident.resolved_at)}` : ''}
      ${incident.automatic ? html` · <span class="auto">opened automatically</span>` : ''}
    </p>
    <ul class="updates">
      ${incident.updates.map((u) => html`<li>${when(u.at)} <strong>${u.status}</strong> — ${u.message}</li>`)}
    </ul>
    ${incidentLinks(incident, until)}
  </article>`;
}

/** Constants of this module and the history's, not data: the one string not escaped. */
const STYLE = new SafeHtml(`
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1.5rem;color:#1d2430}
h1{font-size:1.6rem;margin:0 0 1rem}h2{font-size:1.15rem;margin:2rem 0 .6rem}
.overall{padding:1rem 1.2rem;border-radius:.5rem;font-size:1.2rem;font-weight:600;color:#fff;background:#1f883d}
#overall.state-degraded{background:#bf8700}#overall.state-partial_outage{background:#d1640d}#overall.state-major_outage{background:#cf222e}#overall{color:#fff}
.banner{margin:1rem 0;padding:.8rem 1rem;border:2px solid #bf8700;border-radius:.5rem;background:#fff8c5}
.figures{display:flex;flex-wrap:wrap;column-gap:2rem}.figures div{font-size:1.3rem;font-weight:600}.figures span{display:block;font-size:.8rem;font-weight:400;color:#57606a}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #d0d7de;white-space:nowrap}
td.uptime,td.p50,td.p95,td.p99,td.requests{text-align:right;font-variant-numeric:tabular-nums}
.state-operational{color:#1f883d}.state-degraded{color:#9a6700}.state-partial_outage{color:#bc4c00}.state-major_outage{color:#cf222e}
.tag,.badge{font-size:.75rem;padding:.05rem .4rem;border-radius:1rem;background:#eaeef2}
.incident{border-left:4px solid #cf222e;padding:.2rem 1rem;margin:1rem 0}.incident.resolved{border-color:#8c959f}
.incident h3{margin:.2rem 0;font-size:1.05rem}.meta{color:#57606a;margin:.2rem 0}.updates{margin:.3rem 0;padding:0;list-style:none}
footer{margin-top:2.5rem;color:#57606a;font-size:.85rem}${HISTORY_STYLE}`);

export function renderStatusPage(report: StatusReport): string {
  const page = html`<!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta http-equiv="refresh" content="60" />
        <title>Status — model gateway</title>
        <style>
          ${STYLE}
        </style>
      </head>
      <body>
        <h1>Model gateway status</h1>
        <div class="overall state-${report.status.state}" id="overall">${report.status.description}</div>
        ${report.simulated_families.map(
          (family) =>
            html`<div class="banner" role="alert" data-simulated="${family}">
              <strong>Simulator:</strong> the ${family} family is answered by the gateway's built-in simulator, not by the real vendor. Its figures describe the
              simulator.
            </div>`,
        )}
        <h2>Uptime, all models</h2>
        <div class="figures" id="uptime">
          ${WINDOWS.map((w) => html`<div class="uptime-${w.name}">${formatUptime(report.uptime[w.name])}<span>last ${w.name}</span></div>`)}
        </div>
        <h2>Models</h2>
        <div class="scroll">
          <table id="models">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Family</th>
                <th scope="col">Status</th>
                <th scope="col">Uptime 24 h</th>
                <th scope="col">7 d</th>
                <th scope="col">30 d</th>
                <th scope="col">p50</th>
                <th scope="col">p95</th>
                <th scope="col">p99</th>
                <th scope="col">Requests 24 h</th>
                <th scope="col">By endpoint</th>
              </tr>
            </thead>
            <tbody>
              ${report.models.map(modelRow)}
            </tbody>
          </table>
        </div>
        <h2>The last 90 days</h2>
        <p class="legend">
          One bar a day (UTC), today last: green at 99.9 % uptime or more, light green from 99 %, orange from 95 %, red below; grey without requests. A line
          under a bar marks an incident that day, in the colour of its impact. Beside each model, its latency per hour over the last 24 hours (p50 solid, p95
          dashed).
        </p>
        ${historySection(report)}
        <h2>Incidents</h2>
        <section id="incidents">
          ${report.incidents.length ? report.incidents.map((incident) => incidentArticle(incident, report.generated_at)) : html`<p>No incidents in the last 90 days.</p>`}
        </section>
        <footer>
          Uptime is the share of requests that reached a model's upstream and did not fail on the upstream's or the gateway's side (5xx); a day without requests
          has no uptime and counts neither way. Latency: time until the first byte of a successful reply, last 24 h, estimated from 30 buckets between 5 ms and
          120 s. Generated ${when(report.generated_at)} from this gateway's own records. Machine-readable: <a href="status.json">status.json</a>.
        </footer>
      </body>
    </html> `;
  return page.text;
}
