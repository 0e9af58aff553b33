import type { Logger } from '../../platform/logger';
import { listenForNotifications, type NotificationListener } from '../../platform/db/listen';
import { KEY_CHANGES_CHANNEL, type KeyCache } from './cache';

export type KeyChangeListener = NotificationListener;

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
  return listenForNotifications({
    databaseUrl,
    channel: KEY_CHANGES_CHANNEL,
    applicationName: 'switchboard-key-changes',
    logger,
    onNotification: (payload) => cache.invalidate(payload.split(',')),
    onListening: () => cache.clear(),
    onLost: () => cache.clear(),
  });
}
