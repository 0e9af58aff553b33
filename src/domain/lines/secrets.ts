/**
 * A line's webhook signing secrets (spec "Line" rule 4 and the rotation rows of "States and
 * transitions"): one `current` that signs, at most one staged `next` that receivers should
 * start accepting, and `retired` ones kept for the record. Plaintext exists only in memory.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { requireSetting, type Config } from '../../platform/config';
import { open, parseSecretsKey, seal, sealedKeyId, type SecretsKeyRing } from '../../platform/crypto/secretBox';
import type { LineRow } from './store';

type Db = Knex | Knex.Transaction;

/** The key ring sealing secrets at rest (SECRETS_KEY); refused when the setting is missing. */
export function sealingKeyOf(config: Config): SecretsKeyRing {
  return parseSecretsKey(requireSetting(config.secretsKey, 'SECRETS_KEY'));
}

export function generateSigningSecret(): string {
  return crypto.randomBytes(32).toString('hex');
}

/** Binds a ciphertext to its row: one moved to another line or secret row does not open. */
function sealingContext(lineId: string, secretId: string): string {
  return `line_webhook_secrets:${lineId}:${secretId}`;
}

/** A new row's id and sealed plaintext (the id is chosen here because the seal is bound to it). */
function sealedRow(key: SecretsKeyRing, lineId: string, plaintext: string): { id: string; ciphertext: string } {
  const id = crypto.randomUUID();
  return { id, ciphertext: seal(key, plaintext, sealingContext(lineId, id)) };
}

function openRow(key: SecretsKeyRing, row: SealedSecretRow): string {
  return open(key, row.ciphertext, sealingContext(row.line_id, row.id));
}

/** A `line_webhook_secrets` row as read for signing: the plaintext exists only once it is opened. */
export interface SealedSecretRow {
  id: string;
  line_id: string;
  ciphertext: string;
}

/** Opens a secret row read by a statement of another area (the call turn reads it with its event insert). */
export const openSecretRow = openRow;

export async function createCurrentSecret(db: Db, key: SecretsKeyRing, lineId: string, now: Date): Promise<string> {
  const secret = generateSigningSecret();
  await db('line_webhook_secrets').insert({ ...sealedRow(key, lineId, secret), line_id: lineId, state: 'current', created_at: now });
  return secret;
}

/** The line's staged `next` secret, or a fresh one staged now (call under the line's secrets lock). */
async function stagedOrStageNext(trx: Knex.Transaction, key: SecretsKeyRing, lineId: string, now: Date): Promise<{ secretId: string }> {
  const staged = await trx('line_webhook_secrets').where({ line_id: lineId, state: 'next' }).first('id');
  if (staged) return { secretId: staged.id };
  const [row] = await trx('line_webhook_secrets')
    .insert({ ...sealedRow(key, lineId, generateSigningSecret()), line_id: lineId, state: 'next', created_at: now })
    .returning('id');
  return { secretId: row.id };
}

/** Stages a `next` secret; a retry that finds one already staged returns it instead of minting another. */
export async function stageNextSecret(db: Knex, key: SecretsKeyRing, lineId: string, now: Date): Promise<{ secretId: string }> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`line-secrets:${lineId}`]);
    return stagedOrStageNext(trx, key, lineId, now);
  });
}

/**
 * Promotes the staged secret `expectedNextId` to current (retiring the old current) and
 * stages a fresh next. Idempotent: if that promotion already happened, returns the next staged since.
 */
export async function promoteNextAndStage(
  db: Knex,
  key: SecretsKeyRing,
  lineId: string,
  expectedNextId: string,
  now: Date,
): Promise<{ secretId: string }> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`line-secrets:${lineId}`]);
    const expected = await trx('line_webhook_secrets').where({ id: expectedNextId, line_id: lineId }).first('state');
    if (expected?.state === 'next') {
      await trx('line_webhook_secrets').where({ line_id: lineId, state: 'current' }).update({ state: 'retired', retired_at: now });
      await trx('line_webhook_secrets').where({ id: expectedNextId }).update({ state: 'current', promoted_at: now });
    }
    return stagedOrStageNext(trx, key, lineId, now);
  });
}

export async function readSecret(db: Db, key: SecretsKeyRing, secretId: string): Promise<string | undefined> {
  const row = await db('line_webhook_secrets').where({ id: secretId }).first('id', 'line_id', 'ciphertext');
  return row ? openRow(key, row) : undefined;
}

/** The secret deliveries are signed with right now. */
export async function currentSecret(db: Db, key: SecretsKeyRing, lineId: string): Promise<string | undefined> {
  const row = await db('line_webhook_secrets').where({ line_id: lineId, state: 'current' }).first('id', 'line_id', 'ciphertext');
  return row ? openRow(key, row) : undefined;
}

/**
 * A line with the secret its deliveries are signed with right now, in one statement (a delivery
 * attempt needs both: src/domain/webhooks/attempt.ts). Undefined when the line does not exist. The
 * secret is opened only when asked for (an attempt that cannot be made never needs the key ring).
 */
export async function findLineWithCurrentSecret(
  db: Db,
  key: () => SecretsKeyRing,
  lineId: string,
): Promise<{ line: LineRow; secret: () => string | undefined } | undefined> {
  const row = await db('lines as l')
    .leftJoin('line_webhook_secrets as s', function joinCurrent() {
      this.on('s.line_id', '=', 'l.id').andOnVal('s.state', '=', 'current');
    })
    .where('l.id', lineId)
    .first('l.*', { current_secret_id: 's.id', current_secret_ciphertext: 's.ciphertext' });
  if (!row) return undefined;
  const {
    current_secret_id: secretId,
    current_secret_ciphertext: ciphertext,
    ...line
  } = row as LineRow & {
    current_secret_id: string | null;
    current_secret_ciphertext: string | null;
  };
  const secret = () => (secretId && ciphertext ? openRow(key(), { id: secretId, line_id: lineId, ciphertext }) : undefined);
  return { line: line as LineRow, secret };
}

/**
 * Re-seals every secret not yet sealed with the ring's current key (older `v1` values, or another
 * key of the ring) in the current format, so an old key can leave SECRETS_KEY afterwards.
 * Row by row, each under its line's lock, so it runs safely beside live rotations.
 */
export async function resealSecrets(db: Knex, key: SecretsKeyRing): Promise<{ resealed: number; alreadyCurrent: number }> {
  let resealed = 0;
  let alreadyCurrent = 0;
  const rows = await db('line_webhook_secrets').select('id', 'line_id', 'ciphertext').orderBy('id');
  for (const row of rows as Array<{ id: string; line_id: string; ciphertext: string }>) {
    if (sealedKeyId(row.ciphertext) === key.current.id) {
      alreadyCurrent += 1;
      continue;
    }
    await db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`line-secrets:${row.line_id}`]);
      const fresh = await trx('line_webhook_secrets').where({ id: row.id }).first('id', 'line_id', 'ciphertext');
      if (!fresh || sealedKeyId(fresh.ciphertext) === key.current.id) return;
      let plaintext: string;
      try {
        plaintext = openRow(key, fresh);
      } catch (err) {
        // Rows already resealed stay resealed: running again after fixing SECRETS_KEY carries on.
        throw new Error(`secret ${fresh.id} of line ${fresh.line_id}: ${(err as Error).message}`, { cause: err });
      }
      await trx('line_webhook_secrets')
        .where({ id: row.id })
        .update({ ciphertext: seal(key, plaintext, sealingContext(fresh.line_id, fresh.id)) });
      resealed += 1;
    });
  }
  return { resealed, alreadyCurrent };
}

/** When each of `lineIds`' staged `next` secret was staged; a line without one is absent. */
export async function stagedSecretTimes(db: Db, lineIds: readonly string[]): Promise<Map<string, Date>> {
  if (lineIds.length === 0) return new Map();
  const rows: Array<{ line_id: string; created_at: Date }> = await db('line_webhook_secrets')
    .whereIn('line_id', [...lineIds])
    .andWhere({ state: 'next' })
    .select('line_id', 'created_at');
  return new Map(rows.map((row) => [row.line_id, row.created_at]));
}

/**
 * What a line's signing secret signs (src/domain/webhooks/destination.ts, tools/invoke.ts): its events at its
 * `webhook_url` or else the workspace's `default_webhook_url`, its status callbacks, its tools' calls. Empty when
 * nothing the line sends is signed (a hosted line without any of them).
 */
export function signedDeliveriesOf(
  line: { webhook_url: string | null; status_callback_url: string | null; tools: readonly unknown[] | null },
  defaultWebhookUrl: string | null,
): string[] {
  const signed: string[] = [];
  if (line.webhook_url) signed.push('webhook events');
  else if (defaultWebhookUrl) signed.push("webhook events (to the workspace's default webhook URL)");
  if (line.status_callback_url) signed.push('status callbacks');
  if (line.tools && line.tools.length > 0) signed.push('tool calls');
  return signed;
}
