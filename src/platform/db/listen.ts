import pg from 'pg';
import type { Logger } from '../logger';

export interface NotificationListener {
  /** Resolves once the first LISTEN is in place. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const RECONNECT_DELAY_MS = 500;

/**
 * One dedicated connection LISTENing on `channel`, reconnecting when it drops. Notifications sent while it
 * is down are lost: `onListening` runs each time the LISTEN is (again) in place and `onLost` when it drops,
 * so the caller can catch up on what it may have missed.
 */
export function listenForNotifications(options: {
  databaseUrl: string;
  channel: string;
  applicationName: string;
  logger: Logger;
  onNotification(payload: string): void;
  onListening?(): void;
  onLost?(): void;
}): NotificationListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.databaseUrl, application_name: options.applicationName });
    next.on('notification', (message) => {
      if (message.channel === options.channel && message.payload) options.onNotification(message.payload);
    });
    const lost = (err?: unknown) => {
      if (client !== next) return;
      client = undefined;
      options.onLost?.();
      next.end().catch(() => {});
      if (closed) return;
      options.logger.warn({ err, channel: options.channel }, 'notification listener lost its connection, reconnecting');
      retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
    };
    next.on('error', lost);
    next.on('end', () => lost());
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${options.channel}`);
      options.onListening?.();
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
