import crypto from 'node:crypto';
import type { Db } from '../../../../platform/db/knex';

/**
 * One-time tokens of ConversationRelay URLs (security review L13). Twilio signs only the URL, with
 * no timestamp, so a seen `X-Twilio-Signature` would open the same URL again at any time: each TwiML
 * the API serves names a fresh token instead, bound to the call, to the CallSid of the signed request
 * that fetched it and to the call's environment, taken by the first upgrade, within minutes. A new
 * TwiML fetch for the call (a reopened session) supersedes the call's unused tokens. Shared by every
 * API instance through Postgres: the instance Twilio reaches for the socket may not be the one that
 * served the TwiML.
 */
const TABLE = 'twilio_relay_tokens';

/** Twilio opens the socket as soon as it runs the TwiML; a URL unused this long is dead. */
export const RELAY_TOKEN_TTL_MS = 5 * 60 * 1000;

export interface RelayTokenGrant {
  callId: string;
  callSid: string;
  environment: string;
}

const hashOf = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

/** A fresh token for the call's relay URL; the call's earlier unused tokens stop working. */
export async function issueRelayToken(db: Db, grant: RelayTokenGrant, at: Date): Promise<string> {
  const token = crypto.randomBytes(24).toString('base64url');
  await db.transaction(async (trx) => {
    await trx(TABLE).where({ call_id: grant.callId }).whereNull('used_at').del();
    await trx(TABLE).insert({
      token_hash: hashOf(token),
      call_id: grant.callId,
      call_sid: grant.callSid,
      environment: grant.environment,
      expires_at: new Date(at.getTime() + RELAY_TOKEN_TTL_MS),
    });
  });
  return token;
}

/** Takes the token for `callId` (once, unexpired); what it was granted for, or undefined. */
export async function takeRelayToken(db: Db, callId: string, token: string, at: Date): Promise<RelayTokenGrant | undefined> {
  const [row] = (await db(TABLE)
    .where({ token_hash: hashOf(token), call_id: callId })
    .whereNull('used_at')
    .where('expires_at', '>', at)
    .update({ used_at: at })
    .returning(['call_id', 'call_sid', 'environment'])) as Array<{ call_id: string; call_sid: string; environment: string }>;
  return row ? { callId: row.call_id, callSid: row.call_sid, environment: row.environment } : undefined;
}

/** Tokens past their life (the hourly maintenance). */
export async function purgeExpiredRelayTokens(db: Db, at: Date): Promise<number> {
  return db(TABLE).where('expires_at', '<', at).del();
}
