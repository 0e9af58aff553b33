import type { Db } from '../../../../platform/db/knex';

/**
 * The language each Telnyx call's transcription was started in, by its `call_control_id`: `call.transcription`
 * carries no language (telnyx 7.24.0 `Transcription.Payload.transcription_data`: confidence, is_final,
 * transcript, transcription_track), and `client_state` set at dial or answer is replaced by the next command's
 * (Telnyx applies it "to every subsequent webhook"), so the translator reads it here. Written by the worker's
 * adapter when it dials or answers; read by the API's webhook translator.
 */
export interface TelnyxCallLanguages {
  remember(carrierCallId: string, callId: string, language: string): Promise<void>;
  /** `multi`, the pinned code, or undefined for a call started before this was recorded. */
  of(carrierCallId: string): Promise<string | undefined>;
}

const TABLE = 'telnyx_calls';

export function postgresTelnyxCallLanguages(db: Db): TelnyxCallLanguages {
  return {
    async remember(carrierCallId, callId, language) {
      await db(TABLE).insert({ carrier_call_id: carrierCallId, call_id: callId, language }).onConflict('carrier_call_id').ignore();
    },
    async of(carrierCallId) {
      const row = (await db(TABLE).where({ carrier_call_id: carrierCallId }).first('language')) as { language: string } | undefined;
      return row?.language;
    },
  };
}

/** Kept two days: far longer than any call. */
export async function purgeOldTelnyxCalls(db: Db, at: Date): Promise<number> {
  return db(TABLE)
    .where('created_at', '<', new Date(at.getTime() - 2 * 24 * 3600 * 1000))
    .del();
}

/**
 * The language a call's utterances are reported in: the line's pinned language (its transcription was started
 * in it); none for `multi`, whose engine detects the language without telling (docs/decisions/telnyx.md).
 */
export function utteranceLanguage(lineLanguage: string | undefined): string | undefined {
  return lineLanguage && lineLanguage !== 'multi' ? lineLanguage : undefined;
}
