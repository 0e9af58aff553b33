import pg from 'pg';
import type { Logger } from '../../platform/logger';
import { KEY_CHANGES_CHANNEL, type KeyCache } from './cache';

export interface KeyChangeListener {
  /** Resolves once the first LISTEN is in place. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const RECONNECT_DELAY_MS = 500;

/**
 * One dedicated connection per process LISTENing on KEY_CHANGES_CHANNEL: each notification drops the named keys
 * (and their descendants) from `cache`. Notifications sent while the connection is down are lost, so the whole
 * cache is cleared when it drops and again once it listens anew; meanwhile the cache's TTL bounds staleness.
 */
export function listenForKeyChanges(
  databaseUrl: string,
  cache: KeyCache<{ id: string; ancestor_ids: string[] }>,
  logger: Logger,
): KeyChangeListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl, application_name: 'switchboard-key-changes' });
    next.on('notification', (message) => {
      if (message.channel === KEY_CHANGES_CHANNEL && message.payload) cache.invalidate(message.payload.split(','));
    });
    const lost = (err?: unknown) => {
      if (client !== next) return;
      client = undefined;
      cache.clear();
      next.end().catch(() => {});
      if (closed) return;
      logger.warn({ err }, 'key change listener lost its connection; cache cleared, reconnecting');
      retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
    };
    next.on('error', lost);
    next.on('end', () => lost());
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${KEY_CHANGES_CHANNEL}`);
      cache.clear();
      markReady();
    } catch (err) {
      lost(err);
    }
  };
  void connect();

  return {
    ready,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
