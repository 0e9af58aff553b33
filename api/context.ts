import type { DispatchLimits, MessageHandOver } from '../src/domain/messages/dispatch';
import type { ContactListCsv } from '../src/domain/campaigns/contactListCsv';
import type Koa from 'koa';
import type Stripe from 'stripe';
import type { Client } from '@temporalio/client';
import type { Config } from '../src/platform/config';
import type { Db } from '../src/platform/db/knex';
import type { ApiKeyRow } from '../src/domain/keys/store';
import type { Logger } from '../src/platform/logger';
import type { CardVaults } from '../src/adapters/payments/port';
import type { Mailer } from '../src/adapters/email/port';
import type { RecordingStore } from '../src/adapters/storage/port';
import type { CarrierRecording } from '../src/adapters/carrier/port';
import type { CarrierReach } from '../src/domain/carriers/reach';
import type { TelnyxInboxPorts } from '../src/domain/telnyxInbox/apply';
import type { NotedAction } from './portal/notedAction';
import type { ApiError } from './errors';

/** What every handler can reach: shared infrastructure, never per-tenant state. */
export interface AppDeps {
  config: Config;
  db: Db;
  temporal: Client;
  logger: Logger;
  /** Injected clock, so tests can move time without sleeping. */
  now: () => Date;
  /** The instant calling hours are judged at (src/domain/useCaseDeps.ts), `now` when absent. */
  callingHoursNow?: () => Date;
  /**
   * What processing Telnyx's webhooks needs of Telnyx (declining a call, finding a leg's recording, the call state
   * shared with the worker: speech queue, languages, dial records); src/main builds it when an environment is on Telnyx.
   */
  telnyxInbox?: TelnyxInboxPorts;
  /**
   * Opens a call's recording at the carrier of its environment, with the carrier's credentials (src/main builds it);
   * the portal plays recordings through it. Absent: the portal shows no recording player.
   */
  openRecording?: (request: { environment: 'test' | 'live'; callId: string; recordingUrl: string }) => Promise<CarrierRecording>;
  /**
   * The operator's recordings store (`RECORDINGS_STORE`, src/main builds it): a call's recording is served from
   * its copy there once stored (with `Range`), from the carrier (`openRecording`) until then.
   */
  recordingStore?: RecordingStore;
  /**
   * Where each environment saves cards (src/main builds it from PAYMENTS_PROVIDER); the portal's
   * billing page saves none without it.
   */
  cardVaults?: CardVaults;
  /**
   * Where the portal's mail goes (verification, password reset, invitations); src/main builds it
   * from SMTP_URL (src/adapters/email/smtp.ts). Absent: those pages answer 503 `mail_unavailable`.
   */
  mailer?: Mailer;
  /** True once the process has begun draining (SIGTERM): /readyz answers 503 from then on. */
  draining?: () => boolean;
  /** Where accepted SMS have their send workflow started off the request: createApp sets its MessageDispatcher here. */
  messageHandOver?: MessageHandOver;
  /** How createApp's MessageDispatcher batches (its defaults unless given: a test that needs one batch of a known size). */
  messageBatching?: Partial<DispatchLimits>;
}

/** The authenticated principal. Tenant and environment always come from the key. */
export interface Principal {
  key: ApiKeyRow;
  workspaceId: string;
  userId: string;
  environment: 'test' | 'live';
  scopes: readonly string[];
}

/** One request's use of a row of the limits table: the headers to send, the refusal when spent, and how to give it back. */
export interface LimitSpend {
  headers: Record<string, string>;
  refusal?: ApiError;
  /** Gives the hit back (a request refused as malformed did no work). */
  giveBack(): Promise<void>;
}

export interface AppState {
  requestId: string;
  log: Logger;
  principal?: Principal;
  /**
   * On /mcp with an OAuth access token (api/mcp/auth.ts): the delegated API key the token stands for,
   * sent as the credential of the endpoint's in-process requests. Never logged, never answered.
   */
  delegatedKey?: string;
  /** Parsed JSON body; undefined when the request had none. */
  body?: unknown;
  rawBody?: Buffer;
  /** An upload route's body, read as it streamed in (api/middleware/csvUpload.ts): its digest (the idempotency fingerprint's) and what it held. */
  upload?: { sha256: string; list: ContactListCsv };
  /** Set by the idempotency middleware when this request owns an Idempotency-Key. */
  idempotency?: IdempotencyHandle;
  /** The route's rate-limit hit, when the idempotency claim counted it (api/middleware/rateLimit.ts applies it). */
  limitSpent?: LimitSpend;
  /** What an idempotent replay returns, when it must differ from the first response (no secrets). */
  replayBody?: unknown;
  /** A verified Stripe webhook event and the environment whose signing secret verified it (api/stripeAuth.ts). */
  stripeEvent?: { environment: 'test' | 'live'; event: Stripe.Event };
  /** The environments the carrier whose signature verified this callback serves (api/carrierAuth.ts). */
  carrierReach?: CarrierReach;
  /** Query string after schema validation and type coercion. */
  query?: Record<string, unknown>;
  /** What a portal form post's audit record knows so far (api/portal/actionLog.ts). */
  portalAction?: NotedAction;
  /** What the access log writes instead of the path, when the path holds a secret (api/routes/temporalCodec.ts). */
  loggedPath?: string;
}

export interface IdempotencyHandle {
  /** Completes the record inside the handler's own transaction, so effect and record commit together. */
  completeInTransaction(trx: import('knex').Knex.Transaction, status: number, replayBody: unknown): Promise<void>;
  /**
   * The completion as values a use case writes in its own one statement with what it records (src/domain/useCaseDeps.ts
   * `AnswerWithin`): `body` is the answer for the recorded row.
   */
  answerWithin<R>(status: number, body: (recorded: R) => unknown): import('../src/domain/useCaseDeps').AnswerWithin<R>;
  /** Forgets an answer completed in the handler's transaction whose effect was then compensated, so a retry is evaluated afresh. */
  forgetCompleted(): Promise<void>;
}

export type AppContext = Koa.ParameterizedContext<AppState> & { params: Record<string, string> };

export function principalOf(ctx: AppContext): Principal {
  if (!ctx.state.principal) throw new Error('route reached without authentication');
  return ctx.state.principal;
}
