import type { Logger } from '../../platform/logger';
import { listenForNotifications, type NotificationListener } from '../../platform/db/listen';
import { KEY_CHANGES_CHANNEL, type KeyCache } from './cache';

export type KeyChangeListener = NotificationListener;

/** How often the listener proves its connection alive, and how long each answer vouches for the cache after it was asked. */
export const KEY_LISTENER_HEARTBEAT_MS = 250;
export const KEY_CACHE_VOUCH_MS = 1_000;
/** A heartbeat unanswered this long drops the connection (the cache has not been served from since a second after it was sent). */
const KEY_LISTENER_GIVE_UP_MS = 5_000;

/**
 * One dedicated connection per process LISTENing on KEY_CHANGES_CHANNEL: each notification drops the named keys
 * (and their descendants) from `cache`. Notifications sent while the connection is down are lost, so the whole
 * cache is cleared when it drops and again once it listens anew. A connection can also die silently, so the cache
 * is served from only within KEY_CACHE_VOUCH_MS of a heartbeat the connection answered: a revocation reaches this
 * process within about a second even then (docs/decisions/api.md "Key lookups are cached in each API process").
 */
export function listenForKeyChanges(
  databaseUrl: string,
  cache: KeyCache<{ id: string; ancestor_ids: string[] }>,
  logger: Logger,
): KeyChangeListener {
  return listenForNotifications({
    databaseUrl,
    channel: KEY_CHANGES_CHANNEL,
    applicationName: 'switchboard-key-changes',
    logger,
    onNotification: (payload) => cache.invalidate(payload.split(',')),
    onListening: () => cache.clear(),
    onLost: () => {
      cache.vouch(-Infinity);
      cache.clear();
    },
    heartbeat: {
      everyMs: KEY_LISTENER_HEARTBEAT_MS,
      giveUpAfterMs: KEY_LISTENER_GIVE_UP_MS,
      onAnswer: (sentAtMs) => cache.vouch(sentAtMs + KEY_CACHE_VOUCH_MS),
    },
  });
}
