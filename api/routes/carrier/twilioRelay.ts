import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { AppDeps } from '../../context';
import {
  ConversationRelayHub,
  ConversationRelaySession,
  environmentsOfTwilioAccount,
  takeRelayToken,
  TWILIO_CALLBACK_PATHS,
  twilioAccounts,
  twilioCallbackUrl,
  verifyTwilioUpgrade,
  webSocketUrl,
  type RelayReport,
  type RelayTokenGrant,
} from '../../../src/adapters/carrier/twilio/callbacks';
import { withinCarrierReach } from '../../../src/domain/carriers/reach';
import { requireSetting } from '../../../src/platform/config';
import type { CarrierReach } from '../../../src/domain/carriers/reach';
import { deliver } from './twilioCalls';

/*
 * Twilio's ConversationRelay WebSocket (docs/carriers.md, "Carrier: Twilio"), one per call at
 * `/carrier/twilio/relay/<call id>/<one-time token>`: the upgrade is verified (X-Twilio-Signature over
 * the wss:// URL Twilio was given, the token unused and the call of the signing account's environment;
 * 403 and a log line otherwise, before any WebSocket exists), then the session's
 * caller speech and playback reports go to the call through the same use case as every Twilio
 * callback, and the worker's commands reach it through the hub.
 */

export interface TwilioRelayEndpoint {
  /** Takes the upgrade when it is ConversationRelay's; false for any other path. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a ConversationRelay socket's URL names: `/carrier/twilio/relay/<call id>/<token>` (the URL
 * Twilio signs; twiml.ts `relaySocketUrl`). Null for a path that is not the relay's; `refused` for one
 * without a call id or token (the query form of TwiML served before the one-time tokens opens nothing).
 */
function relayTarget(target: URL): { callId: string; token: string } | 'refused' | null {
  if (target.pathname === TWILIO_CALLBACK_PATHS.relay) return 'refused';
  const prefix = `${TWILIO_CALLBACK_PATHS.relay}/`;
  if (!target.pathname.startsWith(prefix)) return null;
  const [callId, token, ...rest] = target.pathname.slice(prefix.length).split('/').map(decodeURIComponent);
  return callId && UUID.test(callId) && token && rest.length === 0 && !target.search ? { callId, token } : 'refused';
}

export function twilioRelayEndpoint(deps: AppDeps): TwilioRelayEndpoint {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 });
  let hub: ConversationRelayHub | undefined;
  const hubOf = () => (hub ??= new ConversationRelayHub(deps.db, requireSetting(deps.config.databaseUrl, 'DATABASE_URL'), deps.logger));

  /** Reports go to the call the token was granted for, within the environment of the account that signed the upgrade. */
  const reportTo = (callId: string, reach: CarrierReach) => async (report: RelayReport) => {
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

  /**
   * The session Twilio set up is the granted call's: its `callSid` is the CallSid that fetched the TwiML,
   * its `call_id` parameter the URL's. Another is closed, as is a second live session for the call.
   */
  const onSetup = (grant: RelayTokenGrant) => (session: ConversationRelaySession) => {
    const named = session.customParameters.call_id;
    if (session.callSid !== grant.callSid || (named !== undefined && named !== grant.callId)) {
      deps.logger.warn({ callSid: session.callSid, callId: grant.callId }, 'conversationrelay session for another call closed');
      return session.close();
    }
    void hubOf()
      .register(session)
      .catch((err: unknown) => deps.logger.warn({ err, callSid: session.callSid }, 'conversationrelay session not registered'));
  };

  const refuse = (socket: Duplex, status: string, about: Record<string, unknown>) => {
    deps.logger.warn(about, 'twilio callback refused');
    socket.on('error', () => socket.destroy());
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  };

  /** The upgrade's signing account, then its one-time token, then the call's environment against that account's. */
  const admit = async (req: http.IncomingMessage, socket: Duplex, head: Buffer, target: URL) => {
    const named = relayTarget(target);
    if (named === null) return;
    if (named === 'refused') return refuse(socket, '403 Forbidden', { reason: 'relay_url_without_call_or_token', path: target.pathname });
    const url = `${twilioCallbackUrl(webSocketUrl(deps.config.publicBaseUrl), target.pathname)}`;
    const signature = req.headers['x-twilio-signature'];
    const verdict = verifyTwilioUpgrade({
      accounts: twilioAccounts(deps.config),
      signature: typeof signature === 'string' ? signature : undefined,
      url,
    });
    if (!verdict.valid) return refuse(socket, '403 Forbidden', { reason: verdict.reason, path: TWILIO_CALLBACK_PATHS.relay });
    const reach = environmentsOfTwilioAccount(deps.config, verdict.account.accountSid);
    const grant = await takeRelayToken(deps.db, named.callId, named.token, deps.now());
    if (!grant) return refuse(socket, '403 Forbidden', { reason: 'relay_token_unknown_used_or_expired', call_id: named.callId });
    if (
      !withinCarrierReach(
        deps.logger,
        reach,
        { environment: grant.environment },
        { call_id: grant.callId, path: TWILIO_CALLBACK_PATHS.relay },
      )
    )
      return refuse(socket, '403 Forbidden', { reason: 'relay_for_another_environment', call_id: grant.callId });
    wss.handleUpgrade(req, socket, head, (ws) => {
      const report = reportTo(grant.callId, reach);
      new ConversationRelaySession(ws, {
        log: deps.logger,
        report,
        onSetup: onSetup(grant),
        onClose: (s) => hub?.unregister(s),
      });
    });
  };

  return {
    upgrade(req, socket, head) {
      const target = new URL(req.url ?? '/', 'http://api');
      if (relayTarget(target) === null) return false;
      admit(req, socket, head, target).catch((err: unknown) => {
        deps.logger.error({ err }, 'conversationrelay upgrade failed');
        socket.destroy();
      });
      return true;
    },
    async close() {
      await hub?.close();
      wss.close();
    },
  };
}
