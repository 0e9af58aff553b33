import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { AppDeps } from '../../context';
import { TWILIO_CALLBACK_PATHS, twilioCallbackUrl } from '../../../src/adapters/carrier/twilio/callbacks/paths';
import { ConversationRelayHub } from '../../../src/adapters/carrier/twilio/callbacks/relayHub';
import { ConversationRelaySession, type RelayReport } from '../../../src/adapters/carrier/twilio/callbacks/relaySession';
import { webSocketUrl } from '../../../src/adapters/carrier/twilio/callbacks/twiml';
import { verifyTwilioUpgrade } from '../../../src/adapters/carrier/twilio/callbacks/verify';
import { findCallByCarrierId } from '../../../src/domain/calls/store';
import { environmentsOfTwilioAccount, requireSetting } from '../../../src/platform/config';
import type { CarrierReach } from '../../../src/domain/carriers/reach';
import { deliver } from './twilioCalls';

/*
 * Twilio's ConversationRelay WebSocket (docs/carriers.md, "Carrier: Twilio"), one per call at
 * `/carrier/twilio/relay/<call id>`: the upgrade is verified (X-Twilio-Signature over the wss:// URL
 * Twilio was given; 403 and a log line otherwise, before any WebSocket exists), then the session's
 * caller speech and playback reports go to the call through the same use case as every Twilio
 * callback, and the worker's commands reach it through the hub.
 */

export interface TwilioRelayEndpoint {
  /** Takes the upgrade when it is ConversationRelay's; false for any other path. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

/**
 * The call a ConversationRelay socket is for: the last segment of `/carrier/twilio/relay/<call id>`
 * (the URL Twilio signs), or, for sessions of TwiML served before the call's facts moved to
 * `<Parameter>`s, the `call_id` of `/carrier/twilio/relay?call_id=…`.
 */
function relayCallId(target: URL): string | undefined | null {
  if (target.pathname === TWILIO_CALLBACK_PATHS.relay) return target.searchParams.get('call_id') ?? undefined;
  const prefix = `${TWILIO_CALLBACK_PATHS.relay}/`;
  if (!target.pathname.startsWith(prefix)) return null;
  const id = decodeURIComponent(target.pathname.slice(prefix.length));
  return id && !id.includes('/') ? id : null;
}

export function twilioRelayEndpoint(deps: AppDeps): TwilioRelayEndpoint {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 });
  let hub: ConversationRelayHub | undefined;
  const hubOf = () => (hub ??= new ConversationRelayHub(deps.db, requireSetting(deps.config.databaseUrl, 'DATABASE_URL'), deps.logger));

  /** Reports go to the call named by the session's URL, within the environment of the account that signed the upgrade. */
  const reportTo =
    (callIdOfUrl: string | undefined, reach: CarrierReach) => async (session: ConversationRelaySession, report: RelayReport) => {
      const callId = callIdOfUrl ?? (session.callSid ? (await findCallByCarrierId(deps.db, session.callSid))?.id : undefined);
      if (!callId) return;
      await deliver(
        deps,
        callId,
        report.type === 'utterance'
          ? { type: 'call.utterance', text: report.text, ...(report.language ? { language: report.language } : {}) }
          : {
              type: 'call.playback',
              speak_id: report.speakId,
              played_text: report.playedText,
              done: true,
              ...(report.stopped ? { stopped: true } : {}),
            },
        reach,
      );
    };

  /** The session Twilio set up is the signed URL's call: its `call_id` parameter names that call. */
  const onSetup = (callIdOfUrl: string | undefined) => (session: ConversationRelaySession) => {
    const named = session.customParameters.call_id;
    if (callIdOfUrl && named !== undefined && named !== callIdOfUrl) {
      deps.logger.warn({ callSid: session.callSid, callId: callIdOfUrl }, 'conversationrelay session for another call closed');
      return session.close();
    }
    void hubOf()
      .register(session)
      .catch((err: unknown) => deps.logger.warn({ err, callSid: session.callSid }, 'conversationrelay session not registered'));
  };

  return {
    upgrade(req, socket, head) {
      const target = new URL(req.url ?? '/', 'http://api');
      const callId = relayCallId(target);
      if (callId === null) return false;
      const url = `${twilioCallbackUrl(webSocketUrl(deps.config.publicBaseUrl), target.pathname)}${target.search}`;
      const accounts = [deps.config.twilio.test, deps.config.twilio.live].filter((account) => account !== undefined);
      const signature = req.headers['x-twilio-signature'];
      const verdict = verifyTwilioUpgrade({ accounts, signature: typeof signature === 'string' ? signature : undefined, url });
      if (!verdict.valid) {
        deps.logger.warn({ reason: verdict.reason, path: target.pathname }, 'twilio callback refused');
        socket.on('error', () => socket.destroy());
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return true;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const report = reportTo(callId, environmentsOfTwilioAccount(deps.config, verdict.account.accountSid));
        const session: ConversationRelaySession = new ConversationRelaySession(ws, {
          log: deps.logger,
          report: (r) => report(session, r),
          onSetup: onSetup(callId),
          onClose: (s) => hub?.unregister(s),
        });
      });
      return true;
    },
    async close() {
      await hub?.close();
      wss.close();
    },
  };
}
