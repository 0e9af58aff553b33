import { advancesStatus, isFinalStatus, isWindowOpen, keywordOf, MESSAGE_STATUSES, SMS_WINDOW_MS } from '../../src/domain/messages/rules';

describe('SMS rules', () => {
  describe('the 24-hour window', () => {
    const inboundAt = new Date('2026-11-23T10:00:00.000Z');
    it('is open from the inbound message until 1 ms before 24 hours have passed', () => {
      expect(isWindowOpen(inboundAt, inboundAt)).toBe(true);
      expect(isWindowOpen(inboundAt, new Date(inboundAt.getTime() + SMS_WINDOW_MS - 1))).toBe(true);
    });
    it('is closed at exactly 24 hours and after', () => {
      expect(isWindowOpen(inboundAt, new Date(inboundAt.getTime() + SMS_WINDOW_MS))).toBe(false);
      expect(isWindowOpen(inboundAt, new Date(inboundAt.getTime() + 2 * SMS_WINDOW_MS))).toBe(false);
    });
    it('is closed with no inbound message at all', () => {
      expect(isWindowOpen(null, inboundAt)).toBe(false);
      expect(isWindowOpen(undefined, inboundAt)).toBe(false);
    });
    it('treats an inbound message stamped slightly in the future as just received', () => {
      expect(isWindowOpen(new Date(inboundAt.getTime() + 500), inboundAt)).toBe(true);
    });
  });

  describe('keywords', () => {
    it.each(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'])(
      '%s opts out, in any case and with surrounding whitespace',
      (word) => {
        expect(keywordOf(word)).toBe('opt_out');
        expect(keywordOf(word.toLowerCase())).toBe('opt_out');
        expect(keywordOf(` ${word[0]}${word.slice(1).toLowerCase()}\n`)).toBe('opt_out');
      },
    );
    it.each(['START', 'UNSTOP'])('%s opts back in', (word) => {
      expect(keywordOf(word)).toBe('opt_in');
      expect(keywordOf(word.toLowerCase())).toBe('opt_in');
    });
    it('HELP asks for help', () => {
      expect(keywordOf('help')).toBe('help');
      expect(keywordOf('Help ')).toBe('help');
    });
    it('only the whole message counts', () => {
      for (const text of ['stop it', 'please STOP', 'STOP!', 'S T O P', 'help me', 'start over', 'ending', ''])
        expect(keywordOf(text)).toBeNull();
    });
  });

  describe('status', () => {
    it('moves forward only: queued → sent → a final status', () => {
      expect(advancesStatus('queued', 'sent')).toBe(true);
      expect(advancesStatus('sent', 'delivered')).toBe(true);
      expect(advancesStatus('queued', 'failed')).toBe(true);
      expect(advancesStatus('queued', 'delivered')).toBe(true);
      expect(advancesStatus('delivered', 'sent')).toBe(false);
      expect(advancesStatus('sent', 'sent')).toBe(false);
      expect(advancesStatus('delivered', 'failed')).toBe(false);
      expect(advancesStatus('undelivered', 'delivered')).toBe(false);
    });
    it('final statuses are the ones nothing follows', () => {
      const finals = MESSAGE_STATUSES.filter(isFinalStatus);
      expect(finals.sort()).toEqual(['delivered', 'failed', 'received', 'undelivered']);
      for (const final of finals) for (const next of MESSAGE_STATUSES) expect(advancesStatus(final, next)).toBe(false);
    });
  });
});
