import fc from 'fast-check';
import { httpUrl, wsUrl } from '../../api/openapi/fields';
import { newAjv } from '../../api/openapi/validator';
import { hasScheme } from '../../src/domain/lines/rules';

/**
 * The document's URL fields (`httpUrl`, `wsUrl` in api/openapi/fields.ts) never allow what the rules refuse
 * (`hasScheme`): schemathesis sends schema-valid values and counts a refusal as a failure
 * (`positive_data_acceptance`), as a fresh seed did with `Wss://:`. Here every value the field's whole schema takes
 * (pattern, `uri` format, length, as the API's ajv checks them), drawn from the pattern, must pass the rule.
 */
describe('URL fields: what the document allows, the rules accept', () => {
  const fields = [
    { name: 'httpUrl', schema: httpUrl, schemes: ['http:', 'https:'] },
    { name: 'wsUrl', schema: wsUrl, schemes: ['ws:', 'wss:'] },
  ];

  for (const { name, schema, schemes } of fields) {
    const valid = newAjv(false).compile(schema);

    it(`${name}: every schema-valid value drawn from its pattern has a scheme and a host URL parsing takes`, () => {
      let drawn = 0;
      fc.assert(
        fc.property(fc.stringMatching(new RegExp(schema.pattern as string, 'u')), (value) => {
          fc.pre(valid(value));
          drawn += 1;
          expect(hasScheme(value, schemes)).toBe(true);
        }),
        { numRuns: 3_000, seed: 20261130 },
      );
      // The property held for values the schema takes, not only for ones it refused.
      expect(drawn).toBeGreaterThan(500);
    });
  }

  it('the URLs customers use pass', () => {
    for (const value of [
      'https://agent.example.com/hooks/calls?line=1#x',
      'https://example.com',
      'HTTPS://Example.COM:8443/',
      'http://localhost:3000/webhook',
      'https://user:secret@hooks.example.org/path',
      'https://203.0.113.7/hook',
      'https://[2001:db8::1]:8443/hook',
      'https://my_host.internal.example/',
      'https://example.com./',
      'https://xn--mnchen-3ya.de/',
    ]) {
      expect({ value, valid: newAjv(false).validate(httpUrl, value) }).toEqual({ value, valid: true });
      expect(hasScheme(value, ['http:', 'https:'])).toBe(true);
    }
    expect(newAjv(false).validate(wsUrl, 'wss://relay.example.com/audio?line=1')).toBe(true);
  });

  it('what URL parsing refuses, the schema refuses too', () => {
    for (const value of [
      'Wss://:',
      'wss://:80',
      'wss://user@:80',
      'wss://a:99999',
      'wss://[:]',
      'wss://1.2.3.4.5',
      'wss://256.1.1.1',
      'wss://09.1.1.1',
      'wss://a b',
    ]) {
      expect(hasScheme(value, ['ws:', 'wss:'])).toBe(false);
      expect({ value, valid: newAjv(false).validate(wsUrl, value) }).toEqual({ value, valid: false });
    }
  });
});
