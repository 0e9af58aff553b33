import { ZONE_MULTIPLIER, zoneOf } from '../billing/pricing';
import { findLine } from '../lines/store';
import { refuseDestination, refuseOutbound, type OutboundActor } from '../outbound/preflight';
import type { Db } from '../../platform/db/knex';
import { toE164 } from '../../platform/phone';
import { blockedAsFraud } from './fraud';
import type { CallRow } from './store';

/**
 * Clears the destination of a call's transfer (`POST /calls/{id}/transfer`) and returns it in
 * E.164. Refuses (`OutboundRefusedError`), in order: a number that is not E.164 or is a party of
 * the call (`invalid_field`), an audio-mode call (`transfer_not_supported`: the customer's socket
 * owns its media), the destination's own refusals as for a new call (`number_opted_out`,
 * `consent_required`), a destination dearer than the call's zone (`transfer_zone_not_allowed`:
 * the rest of the call is billed at the call's rate), and `m3_fraud_block`.
 */
export async function clearTransferDestination(db: Db, actor: OutboundActor, call: CallRow, toNumber: string): Promise<string> {
  const to = toE164(toNumber);
  if (!to) refuseOutbound({ code: 'invalid_field', field: 'to_number', message: 'Must be a valid phone number in E.164 (+14155550123)' });
  if (to === call.from_number || to === call.to_number)
    refuseOutbound({ code: 'invalid_field', field: 'to_number', message: 'Must not be a party of the call' });
  if (call.mode === 'audio') refuseOutbound({ code: 'transfer_not_supported', reason: 'Audio-mode calls cannot be transferred' });
  const line = await findLine(db, actor, call.line_id);
  if (!line) refuseOutbound({ code: 'line_not_found' });
  await refuseDestination(db, actor, line, to);
  const destinationZone = zoneOf(to);
  if (ZONE_MULTIPLIER[destinationZone] > ZONE_MULTIPLIER[call.zone])
    refuseOutbound({ code: 'transfer_zone_not_allowed', callZone: call.zone, destinationZone });
  if (await blockedAsFraud(db, actor, to)) refuseOutbound({ code: 'm3_fraud_block' });
  return to;
}
