import type Telnyx from 'telnyx';
import { CarrierAuthError, CarrierRejectedError } from '../port';

/** What the Telnyx adapter needs (src/main/activityDeps.ts builds it from TELNYX_* settings). */
export interface TelnyxSettings {
  apiKey: string;
  /** Telnyx's API (`https://api.telnyx.com/v2`); a local contract stub in tests. */
  baseUrl?: string;
  /** The Call Control application calls are placed on and numbers are assigned to. */
  connectionId: string;
  /** The messaging profile SMS is sent with and numbers are assigned to. */
  messagingProfileId: string;
  /** The approved 10DLC campaign every US local number is assigned to (./messaging.ts); none: no assignment. */
  campaignId?: string;
  /** Requirement groups by country (ISO 3166 alpha-2), satisfying number orders' regulatory requirements there. */
  requirementGroups?: Readonly<Record<string, string>>;
  /** Where Telnyx posts call and message webhooks: `<PUBLIC_BASE_URL>/carrier/telnyx/events`. */
  webhookUrl: string;
  /** Where Telnyx posts a message's webhook the primary URL did not take (TELNYX_WEBHOOK_FAILOVER_URL). */
  webhookFailoverUrl?: string;
  timeoutMs?: number;
}

type TelnyxSdk = typeof import('telnyx');
let sdk: TelnyxSdk | undefined;

/** The telnyx package, loaded on first use: a process that never talks to Telnyx does not pay for it at start (about 0.1 s of CPU). */
function telnyxSdk(): TelnyxSdk {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, as said above
  return (sdk ??= require('telnyx') as TelnyxSdk);
}

export function telnyxClient(settings: TelnyxSettings): Telnyx {
  return new (telnyxSdk().default)({
    apiKey: settings.apiKey,
    ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
    timeout: settings.timeoutMs ?? 10_000,
    // Retries belong to the activity that called (Temporal), which also keeps them idempotent.
    maxRetries: 0,
  });
}

/**
 * Runs one Telnyx request: a 4xx is a `CarrierRejectedError` (asking again changes nothing; 401 and 403 a
 * `CarrierAuthError`), but a
 * 408 or 429 and every 5xx or network failure stay plain errors, which the activity retries.
 * `tolerate` lists statuses that mean "already done" for this command (e.g. hanging up an ended call).
 */
export async function telnyxRequest<T>(what: string, run: () => Promise<T>, tolerate: readonly number[] = []): Promise<T | undefined> {
  try {
    return await run();
  } catch (err) {
    const { APIError, APIConnectionError } = telnyxSdk();
    if (err instanceof APIError && !(err instanceof APIConnectionError) && typeof err.status === 'number') {
      if (tolerate.includes(err.status)) return undefined;
      if (err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) {
        const code = telnyxErrorCode(err.error);
        const message = `Telnyx refused ${what}: ${err.status}${code ? ` (${code})` : ''} ${err.message.slice(0, 200)}`;
        // 401: the API key; 403: what the key may not do.
        if (err.status === 401 || err.status === 403)
          throw new CarrierAuthError(message, { provider: 'telnyx', ...(code ? { code } : {}) });
        throw new CarrierRejectedError(message, {
          provider: 'telnyx',
          ...(code ? { code } : {}),
          ...(code === TELNYX_CALL_ENDED ? { callNotActive: true } : {}),
        });
      }
      throw new Error(`Telnyx error on ${what}: ${err.status}`, { cause: err });
    }
    throw err;
  }
}

/** Telnyx's 90018 "Call has already ended": "This call is no longer active and can't receive commands" (developers.telnyx.com/api/errors/90018). */
const TELNYX_CALL_ENDED = '90018';

/** Telnyx's own code of a refusal: its error envelope is `{errors: [{code, title, detail}]}`. */
function telnyxErrorCode(body: unknown): string | undefined {
  const code = (body as { errors?: Array<{ code?: unknown }> } | undefined)?.errors?.[0]?.code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
}
