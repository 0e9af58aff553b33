import { recordComplianceEvent } from '../compliance/events';
import { callingWindowProblems, normalizedCallingWindow, type WorkspaceCallingWindow } from '../callingHours/rules';
import { hasScheme } from '../lines/rules';
import { redactionProblems } from '../recordings/redactionSettings';
import type { UseCaseDeps } from '../useCaseDeps';
import { egressPolicyFor } from '../../platform/net/egress';
import { ensureAccount, type BillingTenant } from './ledger';
import { writeSettings, type AccountSettings } from './settings';

export type SettingsUpdateOutcome =
  { ok: true; settings: AccountSettings } | { ok: false; refused: 'invalid_fields'; problems: Array<{ field: string; message: string }> };

/** What the audit keeps of a URL: its origin (paths and queries often carry receiver tokens). */
function urlOrigin(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/**
 * Changes the settings (who may is the caller's rule). A default_webhook_url must be an http(s)
 * URL leading to a public address. Every change is a `settings_changed` compliance event
 * committed with it, naming each field that changed from what to what. A `calling_window` may only
 * narrow the legal window (src/domain/callingHours/rules.ts) (and, from the portal,
 * which signed-in user changed it: there is no key to name).
 */
export async function updateSettings(
  deps: UseCaseDeps,
  actor: BillingTenant & { keyId: string | null; via?: 'portal'; userId?: string },
  changes: Record<string, unknown>,
): Promise<SettingsUpdateOutcome> {
  const url = changes.default_webhook_url;
  if (typeof url === 'string') {
    if (!hasScheme(url, ['http:', 'https:'])) {
      return {
        ok: false,
        refused: 'invalid_fields',
        problems: [{ field: 'default_webhook_url', message: 'Must be an http or https URL' }],
      };
    }
    const problems = await egressPolicyFor(deps.config).fieldProblems({ default_webhook_url: url }, actor.environment);
    if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  }
  if ('calling_window' in changes) {
    const problems = callingWindowProblems(changes.calling_window);
    if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  }
  const recordings = changes.recordings as { redaction?: unknown } | undefined;
  if (recordings?.redaction !== undefined) {
    const problems = redactionProblems(recordings.redaction);
    if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  }
  const window = changes.calling_window as WorkspaceCallingWindow | null | undefined;
  const written: Record<string, unknown> = window ? { ...changes, calling_window: normalizedCallingWindow(window) } : { ...changes };
  // The recordings settings are one JSON object: the fields named change, the others stay.
  if (changes.recordings !== undefined)
    written.recordings = deps.db.raw("coalesce(recordings, '{}'::jsonb) || ?::jsonb", [JSON.stringify(changes.recordings)]);
  const tenant = { workspaceId: actor.workspaceId, environment: actor.environment };
  await ensureAccount(deps.db, tenant);
  const now = deps.now();
  const settings = await deps.db.transaction(async (trx) => {
    const { before, after } = await writeSettings(trx, tenant, written, now);
    const changed: Record<string, { from: unknown; to: unknown }> = {};
    for (const field of Object.keys(changes)) {
      const shown = (value: unknown) =>
        field === 'default_webhook_url' ? urlOrigin(value) : field.endsWith('_cents') ? Number(value) : value;
      const [from, to] = [shown(before[field]), shown(after[field])];
      // A calling window and the recordings settings are JSON values (jsonb: both sides read back in one key order).
      const differs =
        field === 'calling_window' || field === 'recordings'
          ? JSON.stringify(before[field]) !== JSON.stringify(after[field])
          : String(before[field]) !== String(after[field]);
      if (differs) changed[field] = { from, to };
    }
    if (Object.keys(changed).length > 0) {
      await recordComplianceEvent(trx, {
        ...tenant,
        eventType: 'settings_changed',
        actorKeyId: actor.keyId,
        metadata: actor.via ? { changed, via: actor.via, user_id: actor.userId } : { changed },
        at: now,
      });
    }
    return after;
  });
  return { ok: true, settings };
}
