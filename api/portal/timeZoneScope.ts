import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time zone a request's page is rendered in: the signed-in operator's workspace's (set when the
 * operator is resolved, api/portal/visitor.ts), UTC before that and for visitors. One scope per
 * request (`inRenderScope`, the portal router's first middleware), so `time()` (components.ts), used
 * by every page, shows the workspace's times without each page passing the zone along. Nothing is
 * shared between requests or processes.
 */
const scope = new AsyncLocalStorage<{ timeZone: string }>();

export function inRenderScope<T>(run: () => Promise<T>): Promise<T> {
  return scope.run({ timeZone: 'UTC' }, run);
}

/** Sets the current request's zone (a no-op outside a request's scope). */
export function renderInTimeZone(timeZone: string): void {
  const current = scope.getStore();
  if (current) current.timeZone = timeZone;
}

export function renderTimeZone(): string {
  return scope.getStore()?.timeZone ?? 'UTC';
}
