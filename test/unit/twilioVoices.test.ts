import { relaySessionLanguages } from '../../src/adapters/carrier/twilio/callbacks/relayLanguages';
import { relayTwiml } from '../../src/adapters/carrier/twilio/callbacks/twiml';
import { relayVoiceName, twilioVoice, TWILIO_VOICE_LANGUAGES } from '../../src/adapters/carrier/twilio/voices';
import { VOICES } from '../../src/domain/voices/catalog';

/**
 * The catalog's voices and the line's language on ConversationRelay (src/adapters/carrier/twilio/voices.ts,
 * callbacks/relayLanguages.ts, callbacks/twiml.ts). ConversationRelay speaks a provider's voice given as
 * `ttsProvider` + `voice` (twilio.com/docs/voice/conversationrelay/voice-configuration): Amazon Polly's
 * neural and generative voices (a standard one such as `Tatyana` fails the session with 64101), Google's,
 * ElevenLabs'. The names below are Twilio's hosted voices, as the `twilio` package types them.
 */
describe('Twilio voices and languages', () => {
  it('maps every catalog voice to a voice ConversationRelay speaks, in the catalog voice’s language', () => {
    for (const { slug, languages } of VOICES) {
      const voice = twilioVoice(slug);
      expect({ slug, mapped: voice !== undefined }).toEqual({ slug, mapped: true });
      const { ttsProvider, voice: name } = relayVoiceName(voice!.voice);
      if (ttsProvider === 'Amazon')
        expect({ slug, name }).toEqual({ slug, name: expect.stringMatching(/^[A-Z][a-z]+-(Neural|Generative)$/) });
      else
        expect({ slug, ttsProvider, name }).toEqual({ slug, ttsProvider: 'Google', name: expect.stringMatching(`^${voice!.language}-`) });
      const catalogLanguage = languages[0] === 'zh' ? 'cmn' : languages[0];
      expect(voice!.multilingual).toBe(catalogLanguage === 'multi');
      if (!voice!.multilingual) expect({ slug, language: voice!.language.split('-')[0] }).toEqual({ slug, language: catalogLanguage });
    }
    expect(relayVoiceName(twilioVoice('russian-irina')!.voice)).toEqual({ ttsProvider: 'Google', voice: 'ru-RU-Chirp3-HD-Aoede' });
  });

  it('the line’s language: multi is transcribed by Deepgram’s detection; a pinned one in its language; speech in the line voice’s', () => {
    expect(relaySessionLanguages({ voiceSlug: 'french-louis', language: 'multi' })).toMatchObject({
      ttsLanguage: 'fr-FR',
      voice: { ttsProvider: 'Amazon', voice: 'Remi-Neural' },
      transcriptionLanguage: 'multi',
      transcriptionProvider: 'Deepgram',
    });
    expect(relaySessionLanguages({ voiceSlug: 'french-louis', language: 'es' })).toMatchObject({
      ttsLanguage: 'fr-FR',
      transcriptionLanguage: 'es-ES',
    });
    // A multilingual catalog voice on a pinned line speaks the line's language, with the catalog's voice of it.
    expect(relaySessionLanguages({ voiceSlug: 'aria', language: 'es' })).toMatchObject({
      ttsLanguage: 'es-ES',
      voice: { ttsProvider: 'Amazon', voice: 'Lucia-Neural' },
      transcriptionLanguage: 'es-ES',
    });
    expect(relaySessionLanguages({ voiceSlug: 'aria', language: 'en' }).voice).toEqual({ ttsProvider: 'Amazon', voice: 'Joanna-Neural' });
    // No voice of that language in the catalog: ConversationRelay's default voice for it.
    const portuguese = relaySessionLanguages({ language: 'pt' });
    expect(portuguese).toMatchObject({ ttsLanguage: 'pt-BR', transcriptionLanguage: 'pt-BR' });
    expect(portuguese.voice).toBeUndefined();
    expect(portuguese.languages).toContainEqual({ code: 'pt-BR' });
    expect(relaySessionLanguages({})).toMatchObject({ ttsLanguage: 'en-US', transcriptionLanguage: 'multi' });
  });

  it('the relay TwiML: a per-call one-time URL with no query, the call’s facts as <Parameter>s, every language it may switch to declared', () => {
    const document = relayTwiml('https://sb.example.com', {
      callId: 'call-1',
      relayToken: 'token-1',
      voiceSlug: 'hebrew-warm',
      lineLanguage: 'he',
    });
    const relay = /<ConversationRelay [^>]*>/.exec(document)![0];
    expect(relay).toContain('url="wss://sb.example.com/carrier/twilio/relay/call-1/token-1"');
    for (const attribute of ['ttsLanguage="he-IL"', 'ttsProvider="Google"', 'voice="he-IL-Standard-A"', 'transcriptionLanguage="he-IL"'])
      expect(relay).toContain(attribute);
    expect(document).toContain('<Parameter name="call_id" value="call-1"/><Parameter name="language" value="he-IL"/>');
    const declared = [...document.matchAll(/<Language code="([^"]+)"/g)].map((m) => m[1]);
    expect(declared.sort()).toEqual([...TWILIO_VOICE_LANGUAGES].sort());
    expect(document).toContain('<Language code="ru-RU" ttsProvider="Google" voice="ru-RU-Chirp3-HD-Aoede"/>');
  });
});
