/**
 * What Switchboard keeps in a Telnyx command's `client_state` (base64 JSON, which Telnyx adds "to every
 * subsequent webhook" of the call, until the next command sets another): on dial and answer the call id and
 * direction, so the call's first webhooks need no lookup; on speak only a reference to the command's chunk (the
 * text stays in Postgres, ./speechQueue.ts), after which the translator finds the call by its `call_control_id`.
 * Pure: the API's translator reads it.
 */
export interface TelnyxClientState {
  /** Switchboard's call id (dial, answer). */
  c?: string;
  /** Direction: `o` outbound (we dialled), `i` inbound (we answered). */
  d?: 'o' | 'i';
  /** Speak: the reference of the command's chunk (`telnyx_speech_chunks.seq`). */
  s?: string;
  /** Dial: machine detection was asked (the answer is reported when detection ends). */
  m?: 1;
  /**
   * Dial: end-of-greeting detection was asked (`greeting_end`): the answer is reported at once, who answered when
   * detection ends, and a machine's greeting end when Telnyx reports it.
   */
  g?: 1;
  /** A transfer's new leg: Switchboard's call id of the call being transferred. */
  x?: string;
}

export function encodeClientState(state: TelnyxClientState): string {
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64');
}

/** The state, or `{}` when absent or not ours (a state set by someone else on the account). */
export function decodeClientState(raw: unknown): TelnyxClientState {
  if (typeof raw !== 'string' || raw === '') return {};
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as unknown;
    if (!value || typeof value !== 'object') return {};
    const state = value as Record<string, unknown>;
    const text = (key: string) => (typeof state[key] === 'string' ? state[key] : undefined);
    const direction = state.d === 'o' || state.d === 'i' ? state.d : undefined;
    return {
      c: text('c'),
      d: direction,
      s: text('s'),
      ...(state.m === 1 ? { m: 1 as const } : {}),
      ...(state.g === 1 ? { g: 1 as const } : {}),
      ...(text('x') ? { x: text('x') } : {}),
    };
  } catch {
    return {};
  }
}
