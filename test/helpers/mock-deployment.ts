import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A gamma deployment of a test's own on 127.0.0.1 (docs/deployments.md): answers every chat
 * call with a small completion (streamed when the call asks), or first the failures queued; counts its calls and the
 * credentials it was sent.
 */

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A gamma deployment of the test's own: answers every chat call, or the scripted failures first. */
export interface MockDeployment {
  url: string;
  calls: number;
  /** When each call arrived (epoch ms). */
  arrivals: number[];
  /** The bearer credentials it was sent, one per call. */
  credentials: string[];
  /** Failures to give before answering again, in order: a status and its headers. */
  failures: Array<{ status: number; headers?: Record<string, string> }>;
  /** How long it waits before each answer's headers. */
  delayMs: number;
}

/** A streamed answer of the same completion: its text, its end, its usage. */
const STREAM = [
  { choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] },
  { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  { choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } },
]
  .map((chunk) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gamma-5.4', ...chunk })}\n\n`)
  .concat('data: [DONE]\n\n')
  .join('');

const streamed = (body: Buffer): boolean => {
  try {
    return (JSON.parse(body.toString('utf8')) as { stream?: unknown }).stream === true;
  } catch {
    return false;
  }
};

export async function mockDeployment(t: Teardown): Promise<MockDeployment> {
  const mock: MockDeployment = { url: '', calls: 0, arrivals: [], credentials: [], failures: [], delayMs: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => setTimeout(answer, mock.delayMs));
    const answer = (): void => {
      mock.calls += 1;
      mock.arrivals.push(Date.now());
      mock.credentials.push(req.headers.authorization ?? '');
      const failure = mock.failures.shift();
      if (failure) {
        res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
        res.end(JSON.stringify({ error: { message: 'deployment says no', type: 'server_error' } }));
        return;
      }
      if (streamed(Buffer.concat(chunks))) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(STREAM);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'gamma-5.4',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
        }),
      );
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return mock;
}
