import { useSuite, type Suite } from './suite';
import type { Receiver } from './receiver';
import { startTelnyxStub, telnyxConfigOn, type TelnyxStub } from './telnyxStub';
import type { Config } from '../../src/platform/config';
import { listenerPort } from './listenerPort';

export interface TelnyxLiveSuite {
  ctx: Suite;
  /** The contract stub standing for Telnyx (started before the harness, closed after it; read it inside tests). */
  stub: TelnyxStub;
  /** The customer's webhook receiver (`ctx.receiver`), emptied before each test. */
  receiver: Receiver;
  /** Where the deployment takes Telnyx's webhooks, the Call Control application's webhook URL at the stub. */
  eventsUrl(): string;
}

/**
 * The setup of a suite on a Telnyx deployment: the live environment on Telnyx (the contract stub,
 * test/support/telnyxStub.ts) and the test environment on the simulator, as Telnyx has no test mode
 * (CARRIER_PROVIDER_LIVE=telnyx, CARRIER_PROVIDER_TEST=simulator). The stub first, then the harness with its
 * worker and a webhook receiver, configured with it (`settings`: more of TELNYX_*); the stub's Call Control
 * application sends its webhooks to the harness's API. Closing the stub is also the oracle: it refuses if the
 * package's own verification refused a webhook the stub signed.
 */
export function useTelnyxLiveSuite(settings: Partial<Config['telnyx']> = {}, options: { mediaListener?: boolean } = {}): TelnyxLiveSuite {
  let stub: TelnyxStub | undefined;
  const overrides: Partial<Config> = { carrier: { live: 'telnyx', test: 'simulator' } };
  beforeAll(async () => {
    stub = await startTelnyxStub();
    // The worker's listener for Telnyx's media sockets, on a port nothing takes by chance before the worker binds it.
    const mediaPort = options.mediaListener ? await listenerPort() : undefined;
    const media = mediaPort === undefined ? {} : { mediaPort, mediaUrl: `ws://127.0.0.1:${mediaPort}/telnyx/media` };
    overrides.telnyx = telnyxConfigOn(stub, { ...settings, ...media });
  });
  const ctx = useSuite({ worker: true, receiver: true, overrides });
  const eventsUrl = () => `${ctx.h.config.publicBaseUrl}/carrier/telnyx/events`;
  beforeAll(() => stub!.setConnectionWebhookUrl(eventsUrl()));
  // After the harness's worker stopped, so nothing of the file still calls Telnyx.
  afterAll(async () => stub?.close());
  return { ctx, stub: standIn(() => stub), receiver: ctx.receiver, eventsUrl };
}

/** What `current()` is once the file's hooks ran, for tests to read through (the hooks set it later than the suite is declared). */
function standIn<T extends object>(current: () => T | undefined): T {
  return new Proxy({} as T, { get: (_, name) => Reflect.get(current()!, name) });
}
