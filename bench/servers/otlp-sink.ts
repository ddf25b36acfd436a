import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The collector of a `--telemetry` gateway: an OTLP/HTTP endpoint on loopback that reads each
 * export, counts it and answers 200 with an empty body (what a collector answers to a full
 * success). It runs in the orchestrator, on the load generator's core, so that what a collector
 * spends is not charged to the gateway's core.
 */
export interface OtlpSink {
  /** The base the gateway's `OTEL_EXPORTER_OTLP_ENDPOINT` names (the exporters add `/v1/traces`, `/v1/metrics`). */
  origin: string;
  /** Exports received so far, by path, with their bytes. */
  received(): Record<string, { exports: number; bytes: number }>;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const counts: Record<string, { exports: number; bytes: number }> = {};
  const server: Server = createServer((req, res) => {
    const count = (counts[req.url ?? '/'] ??= { exports: 0, bytes: 0 });
    req.on('data', (chunk: Buffer) => (count.bytes += chunk.length));
    req.on('end', () => {
      count.exports += 1;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf', 'content-length': '0' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received: () => structuredClone(counts),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One line for the report: what the sink received. */
export function sinkLine(sink: OtlpSink): string {
  const parts = Object.entries(sink.received()).map(([path, { exports, bytes }]) => `${path}: ${exports} exports, ${(bytes / 1048576).toFixed(1)} MiB`);
  return `OTLP sink of the telemetry gateway received: ${parts.length ? parts.join('; ') : 'nothing'}`;
}
