import { CONTACT_OUTCOMES, CONTACT_STATUSES, type ContactOutcome, type ContactStatus } from './rules';
import type { ContactListRow } from './contactListStore';
import type { CampaignRow, ContactRow } from './store';

/** A campaign and its contacts on the wire (`{campaign}`, `{results}`): one shape for the API and the CSV export. */

type Progress = { total: number } & Record<ContactStatus | ContactOutcome, number>;

/** Contacts by status (pending, dialing, done) and, among those done, by outcome. */
export function progressOf(tally: ReadonlyArray<{ status: ContactStatus; outcome: ContactOutcome | null; count: number }>): Progress {
  const progress = Object.fromEntries([...CONTACT_STATUSES, ...CONTACT_OUTCOMES].map((key) => [key, 0])) as Progress;
  progress.total = 0;
  for (const { status, outcome, count } of tally) {
    progress.total += count;
    progress[status] += count;
    if (status === 'done' && outcome) progress[outcome] += count;
  }
  return progress;
}

export function toCampaignRecord(row: CampaignRow, progress: Progress) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    paused_reason: row.paused_reason,
    line_ids: row.line_ids,
    topic: row.topic,
    begin_message: row.begin_message,
    max_duration_seconds: row.max_duration_sec,
    machine_detection: row.machine_detection ? 'detect' : 'disabled',
    answering_machine: row.answering_machine ? { action: row.answering_machine, voicemail_message: row.voicemail_message } : null,
    start_at: row.start_at.toISOString(),
    max_concurrency: row.max_concurrency,
    calls_per_minute: row.calls_per_minute,
    retry: { max_attempts: row.max_attempts, backoff_seconds: row.retry_backoff_sec, on: row.retry_on },
    progress,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ended_at: row.ended_at ? row.ended_at.toISOString() : null,
  };
}

export function toContactResult(row: ContactRow, callIds: readonly string[]) {
  return {
    id: row.id,
    row: row.row_number,
    to_number: row.to_number,
    status: row.status,
    outcome: row.outcome,
    skip_reason: row.skip_reason,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' && row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    duration_sec: row.duration_sec,
    charge_cents: Number(row.charge_cents),
    call_ids: callIds,
    variables: row.variables ?? {},
    metadata: row.metadata ?? {},
    updated_at: row.updated_at.toISOString(),
  };
}

export function toContactListRecord(row: ContactListRow) {
  return {
    id: row.id,
    rows: row.row_count,
    columns: row.columns,
    skipped: { invalid_number: row.invalid_number_rows, duplicate_number: row.duplicate_number_rows },
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
  };
}
