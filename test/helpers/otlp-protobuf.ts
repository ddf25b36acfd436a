import protobuf from 'protobufjs';

/**
 * The OTLP export requests as the `http/protobuf` exporters send them
 * (opentelemetry-proto: collector/{trace,metrics}/v1, trace/v1, metrics/v1, common/v1,
 * resource/v1), read into the shape of their `http/json` encoding (ids as hex, 64-bit integers as
 * strings, enums as numbers) so that one reader serves both. Only the fields the tests read are
 * declared; protobuf skips the others.
 */

const field = (id: number, type: string, rule?: 'repeated') => ({ id, type, ...(rule ? { rule } : {}) });

const root = protobuf.Root.fromJSON({
  nested: {
    AnyValue: {
      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue'] } },
      fields: {
        stringValue: field(1, 'string'),
        boolValue: field(2, 'bool'),
        intValue: field(3, 'int64'),
        doubleValue: field(4, 'double'),
        arrayValue: field(5, 'ArrayValue'),
      },
    },
    ArrayValue: { fields: { values: field(1, 'AnyValue', 'repeated') } },
    KeyValue: { fields: { key: field(1, 'string'), value: field(2, 'AnyValue') } },
    Resource: { fields: { attributes: field(1, 'KeyValue', 'repeated') } },
    Status: { fields: { message: field(2, 'string'), code: field(3, 'int32') } },
    Span: {
      fields: {
        traceId: field(1, 'bytes'),
        spanId: field(2, 'bytes'),
        parentSpanId: field(4, 'bytes'),
        name: field(5, 'string'),
        kind: field(6, 'int32'),
        startTimeUnixNano: field(7, 'fixed64'),
        endTimeUnixNano: field(8, 'fixed64'),
        attributes: field(9, 'KeyValue', 'repeated'),
        status: field(15, 'Status'),
      },
    },
    ScopeSpans: { fields: { spans: field(2, 'Span', 'repeated') } },
    ResourceSpans: { fields: { resource: field(1, 'Resource'), scopeSpans: field(2, 'ScopeSpans', 'repeated') } },
    ExportTraceServiceRequest: { fields: { resourceSpans: field(1, 'ResourceSpans', 'repeated') } },
    HistogramDataPoint: {
      fields: { count: field(4, 'fixed64'), sum: field(5, 'double'), attributes: field(9, 'KeyValue', 'repeated') },
    },
    Histogram: { fields: { dataPoints: field(1, 'HistogramDataPoint', 'repeated') } },
    Metric: { fields: { name: field(1, 'string'), unit: field(3, 'string'), histogram: field(9, 'Histogram') } },
    ScopeMetrics: { fields: { metrics: field(2, 'Metric', 'repeated') } },
    ResourceMetrics: { fields: { resource: field(1, 'Resource'), scopeMetrics: field(2, 'ScopeMetrics', 'repeated') } },
    ExportMetricsServiceRequest: { fields: { resourceMetrics: field(1, 'ResourceMetrics', 'repeated') } },
  },
});

const REQUESTS = { '/v1/traces': root.lookupType('ExportTraceServiceRequest'), '/v1/metrics': root.lookupType('ExportMetricsServiceRequest') };

/** Ids (the byte fields) as the JSON encoding writes them: lowercase hex. */
function hexIds(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (Array.isArray(value)) return value.map(hexIds);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, hexIds(inner)]));
  return value;
}

/** A protobuf export to `path` (`/v1/traces` or `/v1/metrics`) as its JSON encoding would have it. */
export function otlpProtobufAsJson(path: string, body: Buffer): unknown {
  const type = REQUESTS[path as keyof typeof REQUESTS];
  if (!type) throw new Error(`no OTLP request is posted to ${path}`);
  return hexIds(type.toObject(type.decode(body), { longs: String, bytes: Uint8Array, oneofs: false }));
}
