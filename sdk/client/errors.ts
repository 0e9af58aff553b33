/** The envelope every Switchboard error answers with: `{"error": {"code", "message", "details"?}}`. */
export interface ErrorEnvelope {
  error: { code: string; message: string; details?: { field: string; message: string }[] } & Record<string, unknown>;
}

/**
 * A refusal or failure from the API, carrying the spec's error code (`insufficient_credits`,
 * `number_opted_out`, `validation_error`, …), its message and field details, the HTTP status,
 * the request id to quote to an operator, and `Retry-After` in seconds when the API sent one.
 */
export class SwitchboardApiError extends Error {
  override readonly name = 'SwitchboardApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { field: string; message: string }[] | undefined,
    readonly requestId: string | null,
    readonly retryAfterSeconds: number | null,
    /** The whole envelope, for codes that carry more fields (e.g. `promotable_at`). */
    readonly envelope: ErrorEnvelope | undefined,
  ) {
    super(`${status} ${code}: ${message}`);
  }

  /** `outside_calling_hours`: when the callee's calling window next opens (`details` `next_open_at`); null for other codes. */
  get nextOpenAt(): Date | null {
    const value =
      this.code === 'outside_calling_hours' ? this.details?.find((detail) => detail.field === 'next_open_at')?.message : undefined;
    return value ? new Date(value) : null;
  }

  /** Reads the envelope of a non-2xx response; a body that is not one still becomes an error with code `http_<status>`. */
  static async fromResponse(response: Response): Promise<SwitchboardApiError> {
    const text = await response.text();
    let envelope: ErrorEnvelope | undefined;
    try {
      const parsed = JSON.parse(text) as Partial<ErrorEnvelope>;
      if (parsed && typeof parsed.error?.code === 'string') envelope = parsed as ErrorEnvelope;
    } catch {
      envelope = undefined;
    }
    return new SwitchboardApiError(
      response.status,
      envelope?.error.code ?? `http_${response.status}`,
      envelope?.error.message ?? (text.slice(0, 200) || response.statusText),
      envelope?.error.details,
      response.headers.get('x-request-id'),
      retryAfterSeconds(response),
      envelope,
    );
  }
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}
