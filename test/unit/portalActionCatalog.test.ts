import type { AppDeps } from '../../api/context';
import { PORTAL_ACTIONS } from '../../api/portal/actionCatalog';
import { describedFields } from '../../api/portal/actionLog';
import { browserOf, readableDetails } from '../../api/portal/pages/audit';
import { portalRouter } from '../../api/portal/router';

/** Issue 30, item 2: the action log's catalogue covers every portal form post and records no secret. */
describe('portal action catalogue', () => {
  it('names every form post the portal serves (a new one gets a name and words before it ships)', () => {
    const router = portalRouter({} as AppDeps);
    const posts = router.stack.filter((layer) => layer.methods.includes('POST')).map((layer) => layer.path as string);
    expect(posts.length).toBeGreaterThan(30);
    expect(posts.filter((path) => !(path in PORTAL_ACTIONS))).toEqual([]);
    const names = Object.values(PORTAL_ACTIONS).map((kind) => kind.action);
    expect(new Set(names).size).toBe(names.length);
  });

  it('records only the fields it names, checkbox groups as lists, never a password, code, card number or token', () => {
    // Every secret-bearing field a portal form has: passwords, sign-in codes, card entry, link tokens, CSRF tokens.
    const secrets = new Set([
      'password',
      'current_password',
      'new_password',
      'code',
      'number',
      'exp',
      'payment_method',
      'token',
      'csrf_token',
    ]);
    for (const kind of Object.values(PORTAL_ACTIONS))
      expect({
        action: kind.action,
        secret: (kind.fields ?? []).filter((field) => secrets.has(field)),
      }).toEqual({
        action: kind.action,
        secret: [],
      });
    const form = {
      csrf_token: 'tok',
      name: '  Front desk ',
      'scope.calls:create': 'on',
      'scope.numbers:read': 'on',
      'scope.keys:admin': '',
      password: 'hunter2hunter2',
    };
    expect(describedFields(PORTAL_ACTIONS['/portal/api-keys'], form)).toEqual({ name: 'Front desk', scope: 'calls:create, numbers:read' });
    expect(describedFields(PORTAL_ACTIONS['/portal/login'], form)).toEqual({});
    expect(describedFields(PORTAL_ACTIONS['/portal/compliance/opt-outs'], { phone_number: '+1 415 555 0166' })).toEqual({
      phone_number: '+14155550166',
    });
    expect(describedFields(PORTAL_ACTIONS['/portal/compliance/opt-outs'], { phone_number: 'not a number' })).toEqual({
      phone_number: 'not a number',
    });
    expect(describedFields(PORTAL_ACTIONS['/portal/keys'], { name: 'x'.repeat(500) }).name).toHaveLength(200);
  });

  it('shows details as words and a browser in a few', () => {
    expect(readableDetails({ user_id: 'u', via: 'portal', changed_fields: ['name', 'mode'], is_default: true }).toString()).toBe(
      readableDetails({ via: 'portal', changed_fields: ['name', 'mode'], is_default: true }).toString(),
    );
    const shown = (readableDetails({ via: 'portal', changed_fields: ['name', 'mode'], is_default: true }) as { value: string }).value;
    expect(shown).toContain('<span class="audit-detail-name">changed fields:</span> name, mode');
    expect(shown).toContain('<span class="audit-detail-name">is default:</span> yes');
    expect(shown).not.toContain('user id');
    expect(readableDetails(null)).toBe('—');
    expect(browserOf('Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0')).toBe('Firefox 133 on Linux');
    expect(
      browserOf('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15'),
    ).toBe('Safari 18 on macOS');
    expect(
      browserOf(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      ),
    ).toBe('Edge 131 on Windows');
    expect(browserOf('curl/8.5.0')).toBe('curl 8');
    expect(browserOf(null)).toBe('—');
  });
});
