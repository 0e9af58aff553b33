import { activeConsent } from '../compliance/consent';
import { isOptedOut } from '../compliance/optOuts';
import type { HoldRefusal } from '../billing/holds';
import { restrictedLineIds } from '../keys/grants';
import { findLine, type LineRow } from '../lines/store';
import { smsLineAndDestination, type SendAuthorization } from '../messages/store';
import type { Db } from '../../platform/db/knex';
import { toE164 } from '../../platform/phone';

/**
 * Why an outbound call or SMS is refused, in the order the checks run. The API words each one
 * (api/outboundRefusals.ts); the codes are the spec's.
 */
export type OutboundRefusal =
  | { code: 'invalid_field'; field: string; message: string }
  | { code: 'line_not_allowed'; lineId: string }
  | { code: 'line_not_found' }
  | { code: 'line_not_active'; lineStatus: string }
  | { code: 'line_no_webhook' }
  | { code: 'number_opted_out' }
  | { code: 'consent_required' }
  | { code: 'conversation_window_expired' }
  | { code: 'call_in_progress' }
  | { code: 'm3_fraud_block' }
  | { code: 'outside_calling_hours'; nextOpenAt: Date; zone: string; rule: string }
  | { code: 'calling_window_never_opens'; zone: string; rule: string }
  | { code: 'transfer_zone_not_allowed'; callZone: string; destinationZone: string }
  | { code: 'transfer_not_supported'; reason: string }
  | { code: 'hold_refused'; hold: HoldRefusal };

export class OutboundRefusedError extends Error {
  constructor(readonly refusal: OutboundRefusal) {
    super(`outbound request refused: ${refusal.code}`);
    this.name = 'OutboundRefusedError';
  }
}

export function refuseOutbound(refusal: OutboundRefusal): never {
  throw new OutboundRefusedError(refusal);
}

/**
 * Who asks: the tenant, the user (whose payment methods count) and the key with its line restrictions.
 * An operator in the portal acts with no key (`id: null`, unrestricted), as an inbound call has none.
 */
export interface OutboundActor {
  workspaceId: string;
  environment: 'test' | 'live';
  userId: string;
  key: { id: string | null; line_id: string | null; grant_numbers: readonly string[] | null };
}

export type OutboundChannel = 'call' | 'sms';

export interface OutboundRequest<C extends OutboundChannel> {
  channel: C;
  lineId: string;
  /** The destination as given, and the request field it came in (named in the validation error). */
  to: { value: string; field: string };
  /** Problems the use case found in its own fields (a blank text): refused right after the number's. */
  fieldProblems?: ReadonlyArray<{ field: string; message: string }>;
  /** SMS: when the conversation window is judged. */
  now: Date;
}

/** A line that can carry traffic: active, with a number. */
export type OutboundLine = LineRow & { phone_number: string };

export type ClearedOutbound<C extends OutboundChannel> = C extends 'sms'
  ? { to: string; line: OutboundLine; authorization: SendAuthorization }
  : { to: string; line: OutboundLine };

/**
 * A call's destination's own refusals, in order: `number_opted_out`, then `consent_required` on
 * compliance-enabled lines. Also what a call's transfer destination must pass (../calls/transfer.ts).
 * An SMS's (`number_opted_out`, then its window) are read in one statement (../messages/store.ts `smsLineAndDestination`).
 */
export async function refuseDestination(
  db: Db,
  actor: OutboundActor,
  line: Pick<LineRow, 'id' | 'compliance_enabled'>,
  to: string,
): Promise<void> {
  if (await isOptedOut(db, actor, to)) refuseOutbound({ code: 'number_opted_out' });
  if (line.compliance_enabled && !(await activeConsent(db, actor, line.id, to, 'explicit_outbound')))
    refuseOutbound({ code: 'consent_required' });
}

/**
 * The refusals an outbound call and an outbound SMS share, in one fixed order, each checked only
 * after the previous passed: the number (E.164), the use case's own fields, the key's line
 * restriction, the line (exists, active), for calls `line_no_webhook`, `number_opted_out`, then
 * for calls `consent_required` (compliance-enabled lines) and for SMS the conversation window (an
 * inbound SMS within 24 hours or an `explicit_outbound` consent). The reservation comes after,
 * in the use case's own transaction. Throws `OutboundRefusedError`; returns what the checks found.
 */
export async function outboundPreflight<C extends OutboundChannel>(
  db: Db,
  actor: OutboundActor,
  request: OutboundRequest<C>,
): Promise<ClearedOutbound<C>> {
  const to = toE164(request.to.value);
  if (!to)
    refuseOutbound({ code: 'invalid_field', field: request.to.field, message: 'Must be a valid phone number in E.164 (+14155550123)' });
  const [problem] = request.fieldProblems ?? [];
  if (problem) refuseOutbound({ code: 'invalid_field', ...problem });
  const allowed = restrictedLineIds(actor.key);
  if (allowed && !allowed.includes(request.lineId)) refuseOutbound({ code: 'line_not_allowed', lineId: request.lineId });
  // An SMS reads its line and its destination in one statement (the opt-out, the window, the consent), refused below in order.
  const sms = request.channel === 'sms' ? await smsLineAndDestination(db, actor, request.lineId, to, request.now) : undefined;
  const line = sms ? sms.line : await findLine(db, actor, request.lineId);
  if (!line) refuseOutbound({ code: 'line_not_found' });
  if (line.status !== 'active' || !line.phone_number) refuseOutbound({ code: 'line_not_active', lineStatus: line.status });
  const active = line as OutboundLine;
  // The spec's condition is the line's own URL: a workspace default_webhook_url receives events, not a call's conversation (D9).
  if (request.channel === 'call' && line.mode === 'webhook' && !line.webhook_url) refuseOutbound({ code: 'line_no_webhook' });
  if (!sms) {
    await refuseDestination(db, actor, line, to);
    return { to, line: active } as ClearedOutbound<C>;
  }
  if (sms.optedOut) refuseOutbound({ code: 'number_opted_out' });
  if (!sms.authorization) refuseOutbound({ code: 'conversation_window_expired' });
  return { to, line: active, authorization: sms.authorization } as ClearedOutbound<C>;
}
