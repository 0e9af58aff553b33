import crypto from 'node:crypto';
import WebSocket from 'ws';

/**
 * The WebSockets Twilio opens for the TwiML a call runs, for the contract stub (./twilioStub.ts),
 * written from Twilio's documentation of ConversationRelay ("Getting and sending WebSocket messages",
 * the `<ConversationRelay>` noun) and of bidirectional Media Streams ("Media Streams - WebSocket
 * Messages", `<Connect><Stream>`):
 *
 * - The upgrade request carries `X-Twilio-Signature`: the HMAC-SHA1 of the wss:// URL as given in the
 *   TwiML (no parameters), keyed by the auth token.
 * - ConversationRelay: `setup` first, its `customParameters` the `<Parameter>`s of the noun; caller speech
 *   as `prompt` (`voicePrompt`, `lang`, `last`), `lang` being the transcription language, or, with
 *   `transcriptionLanguage="multi"` (Deepgram), the primary tag of the language it detected (Twilio
 *   changelog 2025-10-07); talking over the agent sends `interrupt` (`utteranceUntilInterrupt`,
 *   `durationUntilInterruptMs`) before the prompt; with `debug="speaker-events"`, `info` `agentSpeaking`
 *   `on`/`off`. It takes `text` tokens, `sendDigits`, `language` and `end`; a `language` message that
 *   switches to a language the TwiML did not declare (`<Language>`, or the noun's own) is refused with an
 *   `error` message (Twilio validates every message, error 64107) and changes nothing.
 * - Media Streams: `connected`, `start` (`streamSid`, `callSid`, `tracks`, `mediaFormat`,
 *   `customParameters`), `media` (`track`, `chunk`, `timestamp`, base64 µ-law 8 kHz `payload`), `mark`
 *   (once our audio before it has played), `stop`. It takes `media`, `mark` and `clear`, each with the
 *   `streamSid`.
 */

export interface StubRelay {
  url: string;
  ws: WebSocket;
  /** Every message Switchboard sent on the socket. */
  received: Array<Record<string, unknown>>;
  /** Each speech said (a run of `text` tokens ended by `last: true`). */
  said: string[];
  /** Speeches queued or playing, not yet played to the end. */
  playing: string[];
  /** Tokens of the speech being received. */
  tokens: string[];
  digits: string[];
  /** The `<Parameter>`s, as `setup.customParameters`. */
  customParameters: Record<string, string>;
  /** The languages the TwiML declared: the noun's and its `<Language>`s'. */
  declaredLanguages: string[];
  ttsLanguage?: string;
  transcriptionLanguage?: string;
  /** The `error` messages Twilio sent back. */
  errors: string[];
}

export interface StubMediaStream {
  url: string;
  ws: WebSocket;
  streamSid: string;
  /** Audio Switchboard sent (decoded µ-law frames), in order. */
  received: Buffer[];
  /** Our marks' names, as Twilio echoed them. */
  marks: string[];
  cleared: number;
}

export interface SocketCall {
  sid: string;
  from: string;
  to: string;
  direction: string;
  twiml: string;
  relay?: StubRelay;
  media?: StubMediaStream;
}

const decode = (value: string) =>
  value
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

export function twilioSocketSignature(authToken: string, url: string): string {
  return crypto.createHmac('sha1', authToken).update(Buffer.from(url, 'utf8')).digest('base64');
}

/** Opens a WebSocket as Twilio does (signed upgrade); resolves once open, rejects when refused. */
export function openTwilioSocket(url: string, signature: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { 'x-twilio-signature': signature } });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

export function stubSockets(options: {
  accountSid: string;
  authToken: string;
  /** A ConversationRelay session ended without the call: Twilio requests `<Connect action>` with these parameters. */
  onSessionEnded(call: SocketCall, action: string, params: Record<string, string>): void;
  /** Each upgrade signature the stub computes (the contract's oracle checks it). */
  onSign?(url: string, signature: string): void;
}) {
  const openSigned = (url: string) => {
    const signature = twilioSocketSignature(options.authToken, url);
    options.onSign?.(url, signature);
    return openTwilioSocket(url, signature);
  };
  const send = (ws: WebSocket, message: object) =>
    new Promise<void>((resolve, reject) => ws.send(JSON.stringify(message), (err) => (err ? reject(err) : resolve())));
  const relayOf = (call: SocketCall) => {
    if (!call.relay || call.relay.ws.readyState !== WebSocket.OPEN) throw new Error(`call ${call.sid} has no ConversationRelay session`);
    return call.relay;
  };

  const openRelay = async (call: SocketCall, url: string) => {
    const ws = await openSigned(url);
    const noun = /<ConversationRelay\b[^>]*>/.exec(call.twiml)![0];
    const attribute = (name: string) => {
      const match = new RegExp(`\\b${name}="([^"]*)"`).exec(noun);
      return match ? decode(match[1]) : undefined;
    };
    const ttsLanguage = attribute('ttsLanguage') ?? attribute('language');
    const transcriptionLanguage = attribute('transcriptionLanguage') ?? attribute('language');
    const declared = [...call.twiml.matchAll(/<Language\b[^>]*\bcode="([^"]*)"/g)].map((m) => decode(m[1]));
    const relay: StubRelay = {
      url,
      ws,
      received: [],
      said: [],
      playing: [],
      tokens: [],
      digits: [],
      customParameters: Object.fromEntries(
        [...call.twiml.matchAll(/<Parameter\b[^>]*\bname="([^"]*)"[^>]*\bvalue="([^"]*)"/g)].map((m) => [decode(m[1]), decode(m[2])]),
      ),
      declaredLanguages: [
        ...new Set([...(ttsLanguage ? [ttsLanguage] : []), ...(transcriptionLanguage ? [transcriptionLanguage] : []), ...declared]),
      ],
      ttsLanguage,
      transcriptionLanguage,
      errors: [],
    };
    call.relay = relay;
    const sessionId = `VX${crypto.randomBytes(16).toString('hex')}`;
    const action = /<Connect\b[^>]*\baction="([^"]*)"/.exec(call.twiml);
    ws.on('close', () => {
      // Closed by the application side (not by the call ending or its TwiML changing): the call goes on at `action`.
      if (call.relay !== relay) return;
      call.relay = undefined;
      if (action) options.onSessionEnded(call, decode(action[1]), { SessionId: sessionId, SessionStatus: 'ended' });
    });
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      relay.received.push(message);
      if (message.type === 'text') {
        relay.tokens.push(String(message.token));
        if (message.last === true) {
          const speech = relay.tokens.join('');
          relay.tokens = [];
          relay.said.push(speech);
          relay.playing.push(speech);
          if (relay.playing.length === 1) void send(ws, { type: 'info', name: 'agentSpeaking', value: 'on' }).catch(() => undefined);
        }
      } else if (message.type === 'sendDigits') relay.digits.push(String(message.digits));
      else if (message.type === 'language') {
        const wanted = [message.ttsLanguage, message.transcriptionLanguage].filter((l): l is string => typeof l === 'string');
        const undeclared = wanted.filter((l) => l !== 'multi' && !relay.declaredLanguages.includes(l));
        if (undeclared.length > 0) {
          const description = `Invalid message received: language ${undeclared.join(', ')} is not configured for this session`;
          relay.errors.push(description);
          void send(ws, { type: 'error', description }).catch(() => undefined);
          return;
        }
        if (typeof message.ttsLanguage === 'string') relay.ttsLanguage = message.ttsLanguage;
        if (typeof message.transcriptionLanguage === 'string') relay.transcriptionLanguage = message.transcriptionLanguage;
      }
    });
    await send(ws, {
      type: 'setup',
      sessionId,
      accountSid: options.accountSid,
      parentCallSid: '',
      callSid: call.sid,
      from: call.from,
      to: call.to,
      forwardedFrom: '',
      callType: 'PSTN',
      callerName: '',
      direction: call.direction === 'inbound' ? 'inbound' : 'outbound',
      callStatus: 'IN-PROGRESS',
      customParameters: relay.customParameters,
    });
  };

  const openMedia = async (call: SocketCall, url: string) => {
    const ws = await openSigned(url);
    const media: StubMediaStream = {
      url,
      ws,
      streamSid: `MZ${crypto.randomBytes(16).toString('hex')}`,
      received: [],
      marks: [],
      cleared: 0,
    };
    call.media = media;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      if (message.streamSid !== media.streamSid) return;
      if (message.event === 'media') media.received.push(Buffer.from((message.media as { payload: string }).payload, 'base64'));
      else if (message.event === 'mark') {
        // The stub plays at once: the mark comes back as soon as it arrives.
        const name = (message.mark as { name: string }).name;
        media.marks.push(name);
        void send(ws, { event: 'mark', sequenceNumber: '0', streamSid: media.streamSid, mark: { name } }).catch(() => undefined);
      } else if (message.event === 'clear') media.cleared += 1;
    });
    await send(ws, { event: 'connected', protocol: 'Call', version: '1.0.0' });
    await send(ws, {
      event: 'start',
      sequenceNumber: '1',
      start: {
        accountSid: options.accountSid,
        streamSid: media.streamSid,
        callSid: call.sid,
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        customParameters: {},
      },
      streamSid: media.streamSid,
    });
  };

  /** What Twilio does when a call ends or leaves a verb: the verb's socket is closed (`stop` first on a stream). */
  const closeSockets = async (call: SocketCall) => {
    const { relay, media } = call;
    call.relay = undefined;
    call.media = undefined;
    if (media && media.ws.readyState === WebSocket.OPEN) {
      await send(media.ws, {
        event: 'stop',
        sequenceNumber: '0',
        streamSid: media.streamSid,
        stop: { accountSid: options.accountSid, callSid: call.sid },
      }).catch(() => undefined);
      media.ws.close(1000);
    }
    if (relay && relay.ws.readyState === WebSocket.OPEN) relay.ws.close(1000);
  };

  return {
    closeSockets,
    /** Runs the sockets of the call's current TwiML (after the verbs before it). */
    async run(call: SocketCall): Promise<void> {
      await closeSockets(call);
      const relayUrl = /<ConversationRelay\b[^>]*\burl="([^"]*)"/.exec(call.twiml);
      if (relayUrl) return openRelay(call, decode(relayUrl[1]));
      const streamUrl = /<Connect>\s*<Stream\b[^>]*\burl="([^"]*)"/.exec(call.twiml);
      if (streamUrl) return openMedia(call, decode(streamUrl[1]));
    },
    /** The session's socket is lost (as when the API instance holding it goes away). */
    dropRelay(call: SocketCall): void {
      relayOf(call).ws.terminate();
    },
    /** What the agent is saying ends: Twilio reports it stopped speaking. */
    async finishSpeech(call: SocketCall): Promise<void> {
      const relay = relayOf(call);
      if (relay.playing.length === 0) throw new Error(`call ${call.sid} is not speaking`);
      relay.playing = [];
      await send(relay.ws, { type: 'info', name: 'agentSpeaking', value: 'off' });
    },
    /**
     * The caller speaks (in `language`, a primary tag, for a `multi` session to detect; `en` by default);
     * over the agent, Twilio interrupts it first (what was heard: the first words of the speech).
     */
    async callerSays(call: SocketCall, text: string, language = 'en'): Promise<void> {
      const relay = relayOf(call);
      if (relay.playing.length > 0) {
        const heard = relay.playing[0].split(' ').slice(0, 3).join(' ');
        relay.playing = [];
        await send(relay.ws, { type: 'interrupt', utteranceUntilInterrupt: heard, durationUntilInterruptMs: 860 });
        await send(relay.ws, { type: 'info', name: 'agentSpeaking', value: 'off' });
      }
      const lang = relay.transcriptionLanguage === 'multi' ? language : (relay.transcriptionLanguage ?? 'en-US');
      await send(relay.ws, { type: 'prompt', voicePrompt: text, lang, last: true });
    },
    /** The caller's audio on the call's stream, 20 ms µ-law frames. */
    async talk(call: SocketCall, frames: Buffer[]): Promise<void> {
      const media = call.media;
      if (!media || media.ws.readyState !== WebSocket.OPEN) throw new Error(`call ${call.sid} has no media stream`);
      let chunk = 0;
      for (const frame of frames) {
        chunk += 1;
        await send(media.ws, {
          event: 'media',
          sequenceNumber: String(chunk + 1),
          media: { track: 'inbound', chunk: String(chunk), timestamp: String(chunk * 20), payload: frame.toString('base64') },
          streamSid: media.streamSid,
        });
      }
    },
  };
}
