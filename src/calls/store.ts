export interface CallRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  line_id: string;
  actor_key_id: string | null;
  direction: 'inbound' | 'outbound';
  from_number: string;
  to_number: string;
  status: string;
  end_cause: string | null;
  carrier_call_id: string | null;
  mode: string;
  zone: string;
  duration_sec: number | null;
  charge_cents: string | null;
  recording_url: string | null;
  transcript: unknown[] | null;
  system_prompt: string | null;
  begin_message: string | null;
  topic: string | null;
  max_duration_sec: number | null;
  created_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
}

/** The call record on the wire (`{call}`). */
export function toCallRecord(row: CallRow) {
  return {
    id: row.id,
    line_id: row.line_id,
    direction: row.direction,
    from_number: row.from_number,
    to_number: row.to_number,
    status: row.status,
    end_cause: row.end_cause,
    duration_sec: row.duration_sec,
    charge_cents: row.charge_cents === null ? null : Number(row.charge_cents),
    started_at: row.started_at ? row.started_at.toISOString() : null,
    ended_at: row.ended_at ? row.ended_at.toISOString() : null,
    recording_url: row.recording_url,
    transcript: row.transcript,
    system_prompt: row.system_prompt,
    begin_message: row.begin_message,
    topic: row.topic,
    max_duration_sec: row.max_duration_sec,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * What a call on this line says first: on compliance-enabled lines, the workspace's default
 * disclosure in the line's language (English for `multi`, falling back to English).
 */
export async function callOpening(
  db: import('knex').Knex,
  line: {
    workspace_id: string;
    environment: string;
    compliance_enabled: boolean;
    recording_enabled: boolean;
    language: string;
    begin_message: string | null;
    context_limit: number | null;
    system_prompt: string | null;
    voice: string | null;
    audio_handler_url: string | null;
  },
) {
  let disclosure: { id: string; message: string } | null = null;
  if (line.compliance_enabled) {
    const language = line.language === 'multi' ? 'en' : line.language;
    disclosure =
      (await db('disclosures')
        .where({ workspace_id: line.workspace_id, environment: line.environment, is_default: true })
        .whereIn('language', [language, 'en'])
        .orderByRaw('case when language = ? then 0 else 1 end', [language])
        .first('id', 'message')) ?? null;
  }
  return {
    disclosure,
    beginMessage: line.begin_message,
    contextLimit: line.context_limit,
    languagePinned: line.language !== 'multi',
    record: line.recording_enabled,
    systemPrompt: line.system_prompt,
    voice: line.voice,
    audioHandlerUrl: line.audio_handler_url,
  };
}
