import WebSocket from 'ws';
import type { Logger } from '../../../../platform/logger';
import type { TwilioRelayCommand } from './relayCommands';
import { utteranceLanguage } from './translate';

/** What a ConversationRelay session tells the call (the API turns it into the call's carrier events). */
export type RelayReport =
  { type: 'utterance'; text: string; language?: string } | { type: 'playback'; speakId: string; playedText: string; stopped: boolean };

interface Pending {
  speakId: string;
  text: string;
}

/**
 * One call's ConversationRelay WebSocket, as the API instance Twilio reached holds it (docs/carriers.md).
 *
 * Twilio → us: `setup` (callSid, and `customParameters`: the `<Parameter>`s of the TwiML, ./twiml.ts),
 * `prompt` (caller speech as text, with `lang`: the transcription language, or the detected one on a
 * `multi` line; `last: false` only with partial prompts, which we do not ask for), `interrupt`
 * (`utteranceUntilInterrupt`: what the caller heard of the talk cycle it cut), `info` (`agentSpeaking`
 * on/off, asked for with `debug="speaker-events"`), `dtmf`, `error`. Us → Twilio: `text` (a whole speech
 * as one token, `last: true`), `language` with `ttsLanguage` only (a speech in a voice of another
 * language the TwiML declared; transcription stays the line's), `sendDigits`.
 *
 * Twilio queues the speeches itself; a speech counts as played when Twilio stops speaking
 * (`agentSpeaking: off`), and an `interrupt` stops every speech not yet played: the first with what was
 * heard of it, the others with nothing.
 */
export class ConversationRelaySession {
  callSid: string | undefined;
  /** The TwiML's `<Parameter>`s, from `setup`. */
  customParameters: Record<string, string> = {};
  private pending: Pending[] = [];
  /** The language the session speaks in now, and the one it started in (the `language` parameter). */
  private language: string | undefined;
  private homeLanguage: string | undefined;
  /** One drain at a time, in order. */
  private draining: Promise<void> = Promise.resolve();
  /** Reports in the order Twilio's messages came. */
  private reporting: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: WebSocket,
    private readonly options: {
      log: Logger;
      report(report: RelayReport): Promise<void>;
      /** Twilio's `setup` named the call. */
      onSetup(session: ConversationRelaySession): void;
      onClose(session: ConversationRelaySession): void;
    },
  ) {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(String(data));
    });
    ws.on('close', () => options.onClose(this));
    ws.on('error', (err) => options.log.warn({ err, callSid: this.callSid }, 'conversationrelay socket error'));
  }

  /** Sends the commands `take` returns (those waiting for this call), after any drain already running. */
  drain(take: () => Promise<TwilioRelayCommand[]>): Promise<void> {
    this.draining = this.draining
      .then(async () => {
        if (this.ws.readyState !== WebSocket.OPEN) return;
        for (const command of await take()) this.run(command);
      })
      .catch((err: unknown) => this.options.log.warn({ err, callSid: this.callSid }, 'conversationrelay commands not sent'));
    return this.draining;
  }

  close(): void {
    this.ws.close(1001, 'switchboard shutting down');
  }

  /** The socket still carries the call (not closing or closed). */
  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  private run(command: TwilioRelayCommand): void {
    if (command.kind === 'speak') {
      // A voice of one language speaks in it; the catalog's multilingual voices speak the session's own.
      const language = command.voice && command.voice.multilingual !== true ? command.voice.language : this.homeLanguage;
      if (language && language !== this.language) {
        this.send({ type: 'language', ttsLanguage: language });
        this.language = language;
      }
      this.send({ type: 'text', token: command.text, last: true });
      this.pending.push({ speakId: command.speakId, text: command.text });
    } else if (command.kind === 'digits') {
      this.send({ type: 'sendDigits', digits: command.digits });
    } else {
      // ConversationRelay has no message that cuts speech from our side (Twilio cuts it when the caller
      // talks): the speeches not yet played are reported stopped and forgotten.
      this.stopPending('');
    }
  }

  private onMessage(raw: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      this.options.log.warn({ callSid: this.callSid, bytes: raw.length }, 'conversationrelay message not understood: not JSON');
      return;
    }
    switch (message.type) {
      case 'setup':
        if (typeof message.callSid !== 'string') {
          this.options.log.warn({ type: message.type }, 'conversationrelay message not understood: setup without callSid');
          return;
        }
        this.callSid = message.callSid;
        this.customParameters = stringsOf(message.customParameters);
        this.homeLanguage = this.language = this.customParameters.language;
        this.options.onSetup(this);
        return;
      case 'prompt':
        if (message.last === false || typeof message.voicePrompt !== 'string' || message.voicePrompt.trim() === '') return;
        // The language is what Twilio said it heard; a prompt without `lang` has none.
        this.report({
          type: 'utterance',
          text: message.voicePrompt.trim(),
          ...(typeof message.lang === 'string' && message.lang ? { language: utteranceLanguage(message.lang) } : {}),
        });
        return;
      case 'interrupt':
        this.stopPending(typeof message.utteranceUntilInterrupt === 'string' ? message.utteranceUntilInterrupt : '');
        return;
      case 'info':
        if (message.name === 'agentSpeaking' && message.value === 'off') {
          const played = this.pending;
          this.pending = [];
          for (const speech of played) this.report({ type: 'playback', speakId: speech.speakId, playedText: speech.text, stopped: false });
        }
        return;
      case 'error':
        this.options.log.warn({ callSid: this.callSid, description: message.description }, 'conversationrelay error');
        return;
      case 'dtmf':
        // Caller digits have no carrier event in Switchboard.
        return;
      default:
        this.options.log.warn({ callSid: this.callSid, type: message.type }, 'conversationrelay message not understood');
        return;
    }
  }

  private stopPending(heard: string): void {
    const stopped = this.pending;
    this.pending = [];
    stopped.forEach((speech, index) =>
      this.report({ type: 'playback', speakId: speech.speakId, playedText: index === 0 ? heard : '', stopped: true }),
    );
  }

  private report(report: RelayReport): void {
    this.reporting = this.reporting
      .then(() => this.options.report(report))
      .catch((err: unknown) => this.options.log.warn({ err, callSid: this.callSid, report: report.type }, 'conversationrelay report lost'));
  }

  private send(message: object): void {
    this.ws.send(JSON.stringify(message));
  }
}

function stringsOf(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
