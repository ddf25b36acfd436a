import pg from 'pg';
import { KEYS_CHANNEL } from './functions-keys.js';

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5000;
/**
 * A listening connection that stopped answering (a peer gone without a FIN) is noticed by this
 * ping: one not answered within the timeout ends the connection, which is then made again.
 */
const PING_EVERY_MS = 15_000;

/**
 * A connection of its own (not the pool's: LISTEN belongs to a session) that LISTENs on the
 * channel the keys' triggers notify (functions-keys.ts, migration 7) and calls `onChange` for every notification — a key changed through any
 * instance, or by hand in psql. Also once on every (re)connection, since notifications sent
 * while it was away are lost. Reconnects after 0.25 s, doubling to 5 s, until closed.
 */
export class KeyChangeListener {
  /** Resolves after the first attempt to listen, whether it succeeded or not. */
  readonly started: Promise<void>;
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | null = null;
  private readonly ping: NodeJS.Timeout;
  /** Ends the current connection and schedules the next (set with each connection). */
  private lose: ((error: Error | null) => void) | null = null;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly onChange: () => void,
    private readonly onError: (error: Error) => void,
    pingEveryMs = PING_EVERY_MS,
  ) {
    this.started = this.connect();
    this.ping = setInterval(() => {
      // A query timeout rejects the query only and keeps the connection: it is ended here.
      this.client?.query('SELECT 1').catch((error: unknown) => this.lose?.(error as Error));
    }, pingEveryMs);
    this.ping.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.ping);
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.retry = null;
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: this.timeoutMs,
      query_timeout: this.timeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: PING_EVERY_MS,
      application_name: 'model-gateway-listener',
    });
    let lost = false;
    const lose = (error: Error | null): void => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      if (this.closed) return;
      if (error) this.onError(error);
      this.retry = setTimeout(() => void this.connect(), this.retryMs);
      this.retry.unref();
      this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
    };
    this.lose = lose;
    client.on('notification', () => this.onChange());
    client.on('error', (error) => lose(error));
    client.on('end', () => lose(null));
    try {
      await client.connect();
      await client.query(`LISTEN ${KEYS_CHANNEL}`);
    } catch (error) {
      lose(error as Error);
      return;
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- close() may have run during the awaits above.
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    this.onChange();
  }
}
