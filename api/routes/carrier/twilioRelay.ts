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
import { deliver } from './twilio';

/*
 * Twilio's ConversationRelay WebSocket (docs/carriers.md, "Carrier: Twilio"): the upgrade is verified
 * (X-Twilio-Signature over the wss:// URL Twilio was given; 403 and a log line otherwise, before any
 * WebSocket exists), then the session's caller speech and playback reports go to the call through the
 * same use case as every Twilio callback, and the worker's commands reach it through the hub.
 */

export interface TwilioRelayEndpoint {
  /** Takes the upgrade when it is ConversationRelay's; false for any other path. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

export function twilioRelayEndpoint(deps: AppDeps): TwilioRelayEndpoint {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 });
  let hub: ConversationRelayHub | undefined;
  const hubOf = () => (hub ??= new ConversationRelayHub(deps.db, requireSetting(deps.config.databaseUrl, 'DATABASE_URL'), deps.logger));

  /** Reports go to the call named by the session's URL, within the environment of the account that signed the upgrade. */
  const reportTo = (query: URLSearchParams, reach: CarrierReach) => async (session: ConversationRelaySession, report: RelayReport) => {
    const callId = query.get('call_id') ?? (session.callSid ? (await findCallByCarrierId(deps.db, session.callSid))?.id : undefined);
    if (!callId) return;
    await deliver(
      deps,
      callId,
      report.type === 'utterance'
        ? { type: 'call.utterance', text: report.text, language: report.language }
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

  return {
    upgrade(req, socket, head) {
      const target = new URL(req.url ?? '/', 'http://api');
      if (target.pathname !== TWILIO_CALLBACK_PATHS.relay) return false;
      const url = `${twilioCallbackUrl(webSocketUrl(deps.config.publicBaseUrl), TWILIO_CALLBACK_PATHS.relay)}${target.search}`;
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
        const report = reportTo(target.searchParams, environmentsOfTwilioAccount(deps.config, verdict.account.accountSid));
        const session: ConversationRelaySession = new ConversationRelaySession(ws, {
          log: deps.logger,
          language: target.searchParams.get('language') ?? undefined,
          report: (r) => report(session, r),
          onSetup: (s) =>
            void hubOf()
              .register(s)
              .catch((err: unknown) => deps.logger.warn({ err, callSid: s.callSid }, 'conversationrelay session not registered')),
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
