import type pg from 'pg';
import { loadPg } from './pg-module.js';

/**
 * A dedicated PostgreSQL session LISTENing on one channel: the wake-up of several daemons on one
 * store (NOTIFY is sent inside the writing transaction and delivered at its commit, in commit
 * order). It carries no data: `onWake` reads the table that holds the truth. The session is
 * re-opened after an error (the server restarted, a failover) with a bounded backoff, and
 * onWake is called once it is back, so whatever was committed meanwhile is read then.
 */
export interface CommitListener {
  close(): Promise<void>;
}

export function listenForCommits(url: string, channel: string, onWake: () => void, onError: (err: unknown) => void): CommitListener {
  let client: pg.Client | null = null;
  let closed = false;
  let retryMs = 100;
  let timer: NodeJS.Timeout | null = null;

  const connect = async () => {
    if (closed) return;
    const c = new (loadPg().Client)({ connectionString: url, application_name: 'mailagent-listen' });
    c.on('notification', (n) => {
      if (n.channel === channel) onWake();
    });
    c.on('error', (err) => {
      onError(err);
      reconnect(c);
    });
    c.on('end', () => reconnect(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${loadPg().escapeIdentifier(channel)}`);
      if (closed) {
        await c.end();
        return;
      }
      client = c;
      retryMs = 100;
      onWake(); // catch up on what was committed while we were not listening
    } catch (err) {
      onError(err);
      reconnect(c);
    }
  };

  const reconnect = (c: pg.Client) => {
    if (closed || (client && client !== c) || timer) return;
    client = null;
    c.removeAllListeners('end');
    void c.end().catch(() => undefined);
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, 5000);
  };

  void connect();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners('end');
        await c.end().catch(() => undefined);
      }
    },
  };
}
