import type { Knex } from 'knex';
import type { EventPolicy } from './events';

/** The line columns that say where its events go. */
export interface EventSourceLine {
  webhook_url: string | null;
  status_callback_url?: string | null;
}

/**
 * Where a line's event goes: a `status_callback` event to the line's `status_callback_url`; a
 * `webhook` event to the line's `webhook_url`, else the workspace's `default_webhook_url` (read
 * only when needed). Null when there is nowhere: the event is then neither recorded nor delivered.
 * (A call's conversation needs the line's own `webhook_url`: that is `line_no_webhook`, not this rule.)
 */
export async function eventDestination(
  db: Knex | Knex.Transaction,
  tenant: { workspaceId: string; environment: string },
  line: EventSourceLine | undefined,
  target: EventPolicy['target'],
): Promise<string | null> {
  if (target === 'status_callback') return line?.status_callback_url || null;
  if (line?.webhook_url) return line.webhook_url;
  const account = await db('billing_accounts')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment })
    .first('default_webhook_url');
  return account?.default_webhook_url || null;
}

/**
 * `eventDestination` of a `webhook` event as one SQL expression, for a statement that reads the
 * line itself (the call turn's claim, ./store.ts `recordMessageAndClaim`): the line's `webhook_url`
 * (`lineWebhookUrlSql`, the caller's constant expression, never request data), else the
 * workspace's `default_webhook_url`, else null. Binds the workspace id and the environment.
 */
export function webhookDestinationSql(lineWebhookUrlSql: string): string {
  return `coalesce(nullif(${lineWebhookUrlSql}, ''),
                  (SELECT nullif(default_webhook_url, '') FROM billing_accounts WHERE workspace_id = ? AND environment = ? LIMIT 1))`;
}
