import { createLogger, maskPhone } from '../../src/platform/logger';

describe('logging hygiene', () => {
  it('masks phone numbers to country code and last two digits', () => {
    expect(maskPhone('+14155552671')).toBe('+1********71');
    expect(maskPhone(null)).toBeNull();
    expect(maskPhone('+1')).toBe('***');
  });

  it('redacts credentials wherever the services put them in a log object', () => {
    const lines: string[] = [];
    const logger = createLogger('t', 'info', { write: (line: string) => lines.push(line) });
    logger.info(
      {
        req: { headers: { authorization: 'Bearer sk_test_secret1' } },
        headers: { authorization: 'Bearer sk_test_secret2' },
        plaintext_key: 'sk_test_x',
        key: { plaintext_key: 'sk_live_y' },
        webhook_secret: 'f00dcafe',
      },
      'x',
    );
    const out = lines.join('');
    expect(out).not.toMatch(/sk_test_secret1|sk_test_secret2|sk_test_x|sk_live_y|f00dcafe/);
    expect(out).toContain('[redacted]');
  });
});
