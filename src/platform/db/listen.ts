import pg from 'pg';
import type { Logger } from '../logger';

export interface NotificationListener {
  /** Resolves once the first LISTEN is in place. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const RECONNECT_DELAY_MS = 500;

/** A round trip on the LISTEN connection, proving it alive (a connection can die without a word: a lost host, a partition). */
export interface ListenerHeartbeat {
  everyMs: number;
  /** A heartbeat unanswered this long counts as a lost connection: it is dropped and made anew. */
  giveUpAfterMs: number;
  /** Each answer, with when its query was sent (performance.now()); the LISTEN's own answer counts as the first. */
  onAnswer(sentAtMs: number): void;
}

/**
 * One dedicated connection LISTENing on `channel`, reconnecting when it drops. Notifications sent while it
 * is down are lost: `onListening` runs each time the LISTEN is (again) in place and `onLost` when it drops,
 * so the caller can catch up on what it may have missed. With `heartbeat`, a silently dead connection is found too.
 */
export function listenForNotifications(options: {
  databaseUrl: string;
  channel: string;
  applicationName: string;
  logger: Logger;
  onNotification(payload: string): void;
  onListening?(): void;
  onLost?(): void;
  heartbeat?: ListenerHeartbeat;
}): NotificationListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let beat: NodeJS.Timeout | undefined;
  const stopBeating = () => {
    clearInterval(beat);
    beat = undefined;
  };

  /** Sends a heartbeat each `everyMs` while none is outstanding; drops the connection when one goes unanswered too long. */
  const beatOn = (next: pg.Client, heartbeat: ListenerHeartbeat, lost: (err: unknown) => void) => {
    let outstandingSince: number | undefined;
    beat = setInterval(() => {
      const now = performance.now();
      if (outstandingSince !== undefined) {
        if (now - outstandingSince > heartbeat.giveUpAfterMs) lost(new Error(`heartbeat unanswered for ${heartbeat.giveUpAfterMs} ms`));
        return;
      }
      outstandingSince = now;
      next.query('select 1').then(() => {
        outstandingSince = undefined;
        if (client === next) heartbeat.onAnswer(now);
      }, lost);
    }, heartbeat.everyMs);
    beat.unref();
  };
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
      stopBeating();
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
      const listenSentAt = performance.now();
      await next.query(`LISTEN ${options.channel}`);
      options.onListening?.();
      if (options.heartbeat && client === next) {
        options.heartbeat.onAnswer(listenSentAt);
        beatOn(next, options.heartbeat, lost);
      }
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
      stopBeating();
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
