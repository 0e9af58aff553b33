import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { open, seal } from '../crypto/secretBox';

/**
 * A line's webhook signing secrets (spec "Line" rule 4 and the rotation rows of "States and
 * transitions"): one `current` that signs, at most one staged `next` that receivers should
 * start accepting, and `retired` ones kept for the record. Plaintext exists only in memory.
 */
type Db = Knex | Knex.Transaction;

export function generateSigningSecret(): string {
  return crypto.randomBytes(32).toString('hex');
}

export async function createCurrentSecret(db: Db, key: Buffer, lineId: string, now: Date): Promise<string> {
  const secret = generateSigningSecret();
  await db('line_webhook_secrets').insert({ line_id: lineId, state: 'current', ciphertext: seal(key, secret), created_at: now });
  return secret;
}

/** Stages a `next` secret; a retry that finds one already staged returns it instead of minting another. */
export async function stageNextSecret(db: Knex, key: Buffer, lineId: string, now: Date): Promise<{ secretId: string }> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`line-secrets:${lineId}`]);
    const staged = await trx('line_webhook_secrets').where({ line_id: lineId, state: 'next' }).first('id');
    if (staged) return { secretId: staged.id };
    const [row] = await trx('line_webhook_secrets').insert({ line_id: lineId, state: 'next', ciphertext: seal(key, generateSigningSecret()), created_at: now }).returning('id');
    return { secretId: row.id };
  });
}

/**
 * Promotes the staged secret `expectedNextId` to current (retiring the old current) and
 * stages a fresh next. Idempotent: if that promotion already happened, returns the next staged since.
 */
export async function promoteNextAndStage(db: Knex, key: Buffer, lineId: string, expectedNextId: string, now: Date): Promise<{ secretId: string }> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`line-secrets:${lineId}`]);
    const expected = await trx('line_webhook_secrets').where({ id: expectedNextId, line_id: lineId }).first('state');
    if (expected?.state === 'next') {
      await trx('line_webhook_secrets').where({ line_id: lineId, state: 'current' }).update({ state: 'retired', retired_at: now });
      await trx('line_webhook_secrets').where({ id: expectedNextId }).update({ state: 'current', promoted_at: now });
    }
    const staged = await trx('line_webhook_secrets').where({ line_id: lineId, state: 'next' }).first('id');
    if (staged) return { secretId: staged.id };
    const [row] = await trx('line_webhook_secrets').insert({ line_id: lineId, state: 'next', ciphertext: seal(key, generateSigningSecret()), created_at: now }).returning('id');
    return { secretId: row.id };
  });
}

export async function readSecret(db: Db, key: Buffer, secretId: string): Promise<string | undefined> {
  const row = await db('line_webhook_secrets').where({ id: secretId }).first('ciphertext');
  return row ? open(key, row.ciphertext) : undefined;
}

/** The secret deliveries are signed with right now. */
export async function currentSecret(db: Db, key: Buffer, lineId: string): Promise<string | undefined> {
  const row = await db('line_webhook_secrets').where({ line_id: lineId, state: 'current' }).first('ciphertext');
  return row ? open(key, row.ciphertext) : undefined;
}
