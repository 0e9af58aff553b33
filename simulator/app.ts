import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { callRoutes } from './carrier/callRoutes';
import { CallSimulatorState } from './carrier/calls';
import { NumberSimulatorState, numberRoutes } from './carrier/numbers';
import { CallbackSender } from './delivery';
import { bearerMatches } from './http';
import { handleMediaUpgrades, mediaRoutes } from './media/routes';
import { MediaSimulatorState } from './media/state';
import { ModelSimulatorState, modelRoutes } from './model';
import { CardProcessorSimulatorState, cardProcessorRoutes } from './processor';
import { MessageSimulatorState, messageRoutes } from './sms';

/**
 * The simulator: the other party Switchboard talks to, as one program. A stand-in for a real
 * carrier (Twilio, Telnyx) with the same shape of API (numbers, calls, SMS, media streams), the
 * language model hosted lines talk to, and the card processor, plus a control API that tests and
 * the demo use to steer them. Its state is in memory on purpose: it plays external systems, not
 * part of Switchboard. See docs/simulator.md.
 */

/**
 * The state of the simulated world: the carrier's numbers (its own fields, inherited, as tests
 * steer them: `state.provisionFault`), calls and messages, and the model. The card processor and
 * the calls' media streams are built beside it by {@link createSimulatorApp}.
 */
export class SimulatorState extends NumberSimulatorState {
  readonly calls: CallSimulatorState;
  readonly messages: MessageSimulatorState;
  readonly model: ModelSimulatorState;

  constructor(options: { calls?: CallSimulatorState; messages?: MessageSimulatorState; model?: ModelSimulatorState } = {}) {
    super();
    this.calls = options.calls ?? new CallSimulatorState();
    this.messages = options.messages ?? new MessageSimulatorState();
    this.model = options.model ?? new ModelSimulatorState();
  }
}

/**
 * The simulator's credentials, one per direction (docs/simulator.md, "Authentication"): bearers it
 * accepts on its carrier API (and media socket), processor API and control API, and the secret it
 * signs its callbacks to Switchboard with.
 */
export interface SimulatorCredentials {
  /** `CARRIER_API_KEY`: bearer of `/carrier/v1/*` and the media socket. */
  carrierApiKey: string;
  /** `PAYMENTS_API_KEY`: bearer of `/processor/v1/*`. */
  paymentsApiKey: string;
  /** `CARRIER_WEBHOOK_SECRET`: signs every callback attempt (never sent). */
  webhookSecret: string;
  /** `SIMULATOR_CONTROL_TOKEN`: bearer of `/control/*` and `/recordings/*`. */
  controlToken: string;
}

/** Mounts every fake on one Koa app: the carrier (numbers, calls, SMS, media control), the model and the card processor. */
export function createSimulatorApp(options: {
  credentials: SimulatorCredentials;
  /** The only base callbacks are posted under (`SIMULATOR_CALLBACK_BASE_URL`); settable later through `callbacks`. */
  callbackBaseUrl?: string | null;
  state?: SimulatorState;
  processor?: CardProcessorSimulatorState;
  /** The URL the simulator is reached at, for recordings' `recording_url` (`startSimulator` sets it once listening). */
  baseUrl?: string;
  /** Calls' audio (simulator/media.ts); defaults to a fresh one over `state.calls`. */
  media?: MediaSimulatorState;
}) {
  const state = options.state ?? new SimulatorState();
  const media = options.media ?? new MediaSimulatorState(state.calls);
  if (options.baseUrl !== undefined) state.calls.baseUrl = options.baseUrl;
  const processor = options.processor ?? new CardProcessorSimulatorState();
  const { credentials } = options;
  const callbacks = new CallbackSender(credentials.webhookSecret, options.callbackBaseUrl ?? null);
  state.calls.callbacks = callbacks;
  state.messages.callbacks = callbacks;
  const router = new Router();

  const requireCarrierAuth: Koa.Middleware = async (ctx, next) => {
    if (!bearerMatches(ctx.get('authorization'), credentials.carrierApiKey)) {
      ctx.status = 401;
      ctx.body = { error: 'invalid carrier credentials' };
      return;
    }
    await next();
  };
  // The control API and the media store steer or read the simulated world: never open (review M10).
  const requireControlToken: Koa.Middleware = async (ctx, next) => {
    const guarded = /^\/(control|recordings)(\/|$)/.test(ctx.path);
    // Recordings are also the carrier's to its customer: its API key reads them, as a carrier's account does.
    const customerReadsRecording = /^\/recordings\//.test(ctx.path) && bearerMatches(ctx.get('authorization'), credentials.carrierApiKey);
    if (guarded && !customerReadsRecording && !bearerMatches(ctx.get('authorization'), credentials.controlToken)) {
      ctx.status = 401;
      ctx.body = { error: 'the control API needs Authorization: Bearer <SIMULATOR_CONTROL_TOKEN>' };
      return;
    }
    await next();
  };

  numberRoutes(router, state, requireCarrierAuth);
  router.get('/healthz', async (ctx) => {
    ctx.body = { status: 'ok' };
  });
  callRoutes(router, state.calls, requireCarrierAuth, callbacks);
  messageRoutes(router, state.messages, requireCarrierAuth, callbacks);
  modelRoutes(router, state.model);
  mediaRoutes(router, media);
  cardProcessorRoutes(router, processor, credentials.paymentsApiKey);

  const app = new Koa();
  app.silent = true;
  app.use(requireControlToken);
  app.use(router.routes()).use(router.allowedMethods());
  return { app, state, processor, media, callbacks };
}

export interface RunningSimulator {
  server: http.Server;
  state: SimulatorState;
  processor: CardProcessorSimulatorState;
  media: MediaSimulatorState;
  callbacks: CallbackSender;
  url: string;
}

/** Starts the simulator's HTTP server (with the media WebSocket) and answers once it listens. */
export async function startSimulator(options: {
  host: string;
  port: number;
  credentials: SimulatorCredentials;
  /** See `createSimulatorApp`; the returned `callbacks.setBaseUrl` sets it later. */
  callbackBaseUrl?: string | null;
  /** Defaults to a fresh state (tests pass one to shorten timeouts). */
  state?: SimulatorState;
}): Promise<RunningSimulator> {
  const { credentials, callbackBaseUrl } = options;
  const { app, state, processor, media, callbacks } = createSimulatorApp({ credentials, callbackBaseUrl, state: options.state });
  const server = http.createServer(app.callback());
  // Calls' audio: WebSocket upgrades on /carrier/v1/calls/{carrier_call_id}/media.
  handleMediaUpgrades(server, media, credentials.carrierApiKey);
  // Requests held by the processor's `timeout` fault would keep close() waiting: let them go.
  const close = server.close.bind(server);
  // Likewise ring timers and pending call-event deliveries would keep the process alive.
  server.close = ((callback?: (err?: Error) => void) => {
    processor.releaseHeld();
    state.calls.stop();
    state.messages.stop();
    state.model.stop();
    media.stop();
    return close(callback);
  }) as typeof server.close;
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${options.host}:${port}`;
  state.calls.baseUrl = url;
  return { server, state, processor, media, callbacks, url };
}
