import type { Db } from '../../src/platform/db/knex';
import type { SimulatorState } from '../../simulator/app';
import { distribution } from '../support/stats';

/**
 * What the carrier saw of a campaign (the simulator's own log of calls, not Switchboard's rows):
 * the achieved pace, lost and duplicate dials, and Switchboard's share of each dial's latency.
 */

export interface DialLog {
  /** Calls the carrier placed to the campaign's callees, oldest first. */
  calls: Array<{ callId: string; to: string; createdAt: number; answeredAt: number | null }>;
}

export function dialLog(simulator: SimulatorState, callees: ReadonlySet<string>): DialLog {
  const calls = simulator.calls
    .list()
    .filter((call) => call.direction === 'outbound' && call.call_id !== null && callees.has(call.to))
    .map((call) => ({
      callId: call.call_id!,
      to: call.to,
      createdAt: Date.parse(call.created_at),
      answeredAt: call.answered_at ? Date.parse(call.answered_at) : null,
    }));
  return { calls: calls.sort((a, b) => a.createdAt - b.createdAt) };
}

/** Dials per minute from the first dial to the last (the pace the carrier saw). */
export function achievedPace(log: DialLog): number {
  const { calls } = log;
  if (calls.length < 2) return NaN;
  return ((calls.length - 1) * 60_000) / (calls[calls.length - 1].createdAt - calls[0].createdAt);
}

/**
 * Unfinished: a contact not done when the bench stopped waiting. Lost: a done contact dialled fewer
 * times than its attempts say (a skip is no dial), or not skipped with no attempt; duplicate: a
 * callee dialled more often than its contact's attempts, or one call id placed twice.
 */
export async function lostAndDuplicates(
  db: Db,
  campaignId: string,
  log: DialLog,
): Promise<{ unfinished: number; lost: number; duplicates: number }> {
  const contacts = await db('campaign_contacts')
    .where({ campaign_id: campaignId })
    .select<Array<{ to_number: string; status: string; outcome: string | null; attempts: number }>>(
      'to_number',
      'status',
      'outcome',
      'attempts',
    );
  const dials = new Map<string, number>();
  for (const call of log.calls) dials.set(call.to, (dials.get(call.to) ?? 0) + 1);
  let unfinished = 0;
  let lost = 0;
  let duplicates = log.calls.length - new Set(log.calls.map((call) => call.callId)).size;
  for (const contact of contacts) {
    const dialled = dials.get(contact.to_number) ?? 0;
    const wanted = contact.outcome === 'skipped' ? 0 : contact.attempts;
    if (contact.status !== 'done') unfinished += 1;
    else if (contact.outcome !== 'skipped' && wanted === 0) lost += 1;
    else if (dialled < wanted) lost += wanted - dialled;
    else duplicates += dialled - wanted;
  }
  return { unfinished, lost, duplicates };
}

/**
 * Switchboard's part of a dial, in ms: from the instant the dispatcher planned it (its call workflow's execution time,
 * `dueAt`: the start delayed to its place in the pace; the server's clock, as the simulator's on this machine) to the
 * carrier receiving the call.
 */
export function dialOverhead(dueAt: ReadonlyMap<string, number>, log: DialLog) {
  return distribution(log.calls.flatMap((call) => (dueAt.has(call.callId) ? [call.createdAt - dueAt.get(call.callId)!] : [])));
}
