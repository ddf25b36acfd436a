import t from 'tap';
import { sinkLine, startOtlpSink } from '../../bench/servers/otlp-sink.js';

t.test("the bench's OTLP sink answers each export with 200 and counts it by path", async (t) => {
  const sink = await startOtlpSink();
  t.teardown(() => sink.close());
  t.match(sinkLine(sink), /received: nothing$/);
  for (const body of ['abc', 'defgh']) {
    const res = await fetch(`${sink.origin}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body });
    t.equal(res.status, 200);
    t.equal(await res.text(), '');
  }
  await fetch(`${sink.origin}/v1/metrics`, { method: 'POST', body: 'x' });
  t.same(sink.received(), { '/v1/traces': { exports: 2, bytes: 8 }, '/v1/metrics': { exports: 1, bytes: 1 } });
  t.match(sinkLine(sink), /\/v1\/traces: 2 exports, 0\.0 MiB; \/v1\/metrics: 1 exports/);
});
