import crypto from 'node:crypto';
import type { Db } from '../../src/platform/db/knex';

export interface CampaignCallRow {
  id: string;
  to_number: string;
  status: string;
  answered_by: string | null;
  end_cause: string | null;
}

/** A campaign's calls as the database has them (a test's own reads stay off the API's read limit). */
export function campaignCalls(db: Db, campaignId: string): Promise<CampaignCallRow[]> {
  return db('calls')
    .whereIn('id', db('campaign_attempts').where({ campaign_id: campaignId }).select('call_id'))
    .select<CampaignCallRow[]>('id', 'to_number', 'status', 'answered_by', 'end_cause');
}

/**
 * Callee numbers for one test file, `prefix` and four random digits in [`from`, `to`), each handed out once. The
 * simulator keeps the outcome a test sets for a destination (busy, never answers, a machine, a fax) for the rest of the
 * file, so a number one test configured and a later test drew again would not answer that test as it expects.
 */
export function calleeNumbers(prefix: string, from = 2000, to = 9000): (count: number) => string[] {
  const handedOut = new Set<string>();
  return (count) => {
    if (handedOut.size + count > to - from) throw new Error(`calleeNumbers: fewer than ${count} numbers left under ${prefix}`);
    const numbers: string[] = [];
    while (numbers.length < count) {
      const number = `${prefix}${crypto.randomInt(from, to)}`;
      if (handedOut.has(number)) continue;
      handedOut.add(number);
      numbers.push(number);
    }
    return numbers;
  };
}
