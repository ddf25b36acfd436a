import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { otlpProtobufAsJson } from './otlp-protobuf.js';

/**
 * An OTLP/HTTP collector of the test's own on 127.0.0.1: keeps every export POSTed to
 * `/v1/traces` and `/v1/metrics` as sent, and reads them, `http/json` (the OTLP JSON encoding:
 * hex ids, attributes as `{key, value: {stringValue | intValue | …}}`) or `http/protobuf`
 * (decoded into that shape), into flat spans and histogram points.
 */

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface Export {
  path: string;
  contentType: string;
  body: Buffer;
}

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's kind: 2 SERVER, 3 CLIENT. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  /** 2 for ERROR, else 0 or 1. */
  statusCode: number;
  attributes: Record<string, AttributeValue>;
  /** The resource's attributes (`service.name`). */
  resource: Record<string, AttributeValue>;
}

export interface ReceivedPoint {
  metric: string;
  unit: string;
  count: number;
  sum: number;
  attributes: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  /** The collector's origin, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  exports: Export[];
  /** Every span of the exports so far. */
  spans(): ReceivedSpan[];
  /** Every histogram point of the exports so far (cumulative: the latest export's points are the totals). */
  points(): ReceivedPoint[];
  /** Polls `ready` every 25 ms until it holds, or fails after `ms`. */
  until<T>(what: string, ready: () => T | undefined | false, ms?: number): Promise<T>;
}

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpAnyValue[] };
}

interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

function valueOf(value: OtlpAnyValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

const attributesOf = (list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

/** The exports to `path` read as their JSON encoding: `http/json` as sent, `http/protobuf` decoded (otlp-protobuf.ts). */
const jsonOf = (exports: Export[], path: string): any[] =>
  exports
    .filter((e) => e.path === path)
    .map((e) => (e.contentType.startsWith('application/json') ? JSON.parse(e.body.toString('utf8')) : otlpProtobufAsJson(path, e.body)));

export async function otlpReceiver(t: Teardown): Promise<OtlpReceiver> {
  const exports: Export[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' });
      res.end(req.headers['content-type']?.startsWith('application/json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    spans: () =>
      jsonOf(exports, '/v1/traces').flatMap((body) =>
        (body.resourceSpans ?? []).flatMap((rs: any) =>
          (rs.scopeSpans ?? []).flatMap((ss: any) =>
            (ss.spans ?? []).map((span: any): ReceivedSpan => ({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              startNs: BigInt(span.startTimeUnixNano),
              endNs: BigInt(span.endTimeUnixNano),
              statusCode: span.status?.code ?? 0,
              attributes: attributesOf(span.attributes),
              resource: attributesOf(rs.resource?.attributes),
            })),
          ),
        ),
      ),
    points: () =>
      jsonOf(exports, '/v1/metrics').flatMap((body) =>
        (body.resourceMetrics ?? []).flatMap((rm: any) =>
          (rm.scopeMetrics ?? []).flatMap((sm: any) =>
            (sm.metrics ?? []).flatMap((metric: any) =>
              (metric.histogram?.dataPoints ?? []).map((point: any): ReceivedPoint => ({
                metric: metric.name,
                unit: metric.unit,
                count: Number(point.count),
                sum: Number(point.sum),
                attributes: attributesOf(point.attributes),
              })),
            ),
          ),
        ),
      ),
    async until(what, ready, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = ready();
        if (value !== undefined && value !== false) return value;
        if (Date.now() > deadline) throw new Error(`the collector did not receive ${what} within ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}
