import { useSuite, type Suite } from './suite';
import { eventually } from './harness';
import { startTwilioStub, type StubCall, type TwilioStub } from './twilioStub';
import type { StubRelay } from './twilioStubSockets';
import type { Config } from '../../src/platform/config';
import { listenerPort } from './listenerPort';

export interface TwilioLiveSuite {
  ctx: Suite;
  /** The contract stub standing for Twilio (started before the harness, closed after the file; read it inside tests). */
  stub: TwilioStub;
  /** Twilio's configuration as the API and worker read it. */
  twilio: Config['twilio'];
  /** The call Twilio placed to `to`, once the worker created it. */
  stubCallTo(to: string): Promise<StubCall>;
  /** Drops the call's ConversationRelay socket; resolves with the session Twilio opens in its place. */
  reopenedRelay(call: StubCall): Promise<StubRelay>;
}

/**
 * The setup of a suite whose live environment runs on Twilio (the contract stub, test/support/twilioStub.ts):
 * the stub first, then the harness whose API and worker are configured with it. `firstNumber`: numbers of
 * the suite's own (the other Twilio suites' lines may still hold theirs). `media`: the worker's Media
 * Streams listener, which the stub reaches as Twilio would reach TWILIO_MEDIA_URL. `messagingService`: the
 * live environment sends through a Messaging Service of the account (TWILIO_LIVE_MESSAGING_SERVICE_SID).
 * `overrides`: more of the deployment's configuration.
 */
export function useTwilioLiveSuite(
  options: { firstNumber?: number; media?: boolean; messagingService?: boolean; overrides?: Partial<Config> } = {},
): TwilioLiveSuite {
  let stub: TwilioStub | undefined;
  const twilio: Config['twilio'] = {};
  beforeAll(async () => {
    stub = await startTwilioStub({ firstNumber: options.firstNumber });
    twilio.live = { accountSid: stub.accountSid, authToken: stub.authToken };
    twilio.apiBaseUrl = stub.url;
    if (options.messagingService) twilio.liveMessagingServiceSid = stub.addMessagingService();
    if (options.media) {
      twilio.mediaPort = await listenerPort();
      twilio.mediaUrl = `ws://127.0.0.1:${twilio.mediaPort}/twilio/media`;
    }
  });
  afterAll(async () => stub?.close());
  const ctx = useSuite({
    worker: true,
    receiver: true,
    overrides: { carrier: { test: 'simulator', live: 'twilio' }, twilio, ...options.overrides },
  });
  return {
    ctx,
    // The stub exists once the file's hooks ran: tests read it through this stand-in.
    stub: new Proxy({} as TwilioStub, { get: (_, name) => Reflect.get(stub!, name) }),
    twilio,
    stubCallTo: (to) => eventually(async () => [...stub!.calls.values()].find((call) => call.to === to), 20_000, `a Twilio call to ${to}`),
    reopenedRelay: (call) => {
      const dropped = call.relay;
      stub!.dropRelay(call.sid);
      return eventually(async () => (call.relay && call.relay !== dropped ? call.relay : undefined), 20_000, 'a new session');
    },
  };
}
