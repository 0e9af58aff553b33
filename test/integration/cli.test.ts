import { runCli } from '../support/cliRun';
import { useSuite } from '../support/suite';
import { until } from '../support/waits';

/**
 * The operator CLI: the first test runs it exactly as the README says (`npm run --silent cli -- ...`: the sources under
 * tsx), the others as the image runs it, from the run's production build (test/support/cliRun.ts).
 */
describe('operator CLI', () => {
  const { h } = useSuite({ tenant: 'none' });
  const cli = (...args: string[]) => runCli(args);

  it('bootstrap --json prints one JSON object whose keys all work', async () => {
    const out = runCli(['bootstrap', '--json'], {}, { viaNpm: true });
    expect(out.status).toBe(0);
    expect(out.json).toEqual({
      workspace_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      owner_email: expect.any(String),
      test_key: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/),
      live_key: expect.stringMatching(/^sk_live_[0-9A-Za-z]{32}$/),
      service_test_key: expect.stringMatching(/^sk_svc_test_[0-9A-Za-z]{32}$/),
      service_live_key: expect.stringMatching(/^sk_svc_live_[0-9A-Za-z]{32}$/),
    });
    expect((await h.request('GET', '/api/v1/lines', { key: String(out.json.test_key) })).status).toBe(200);
    expect((await h.request('GET', '/api/v1/lines', { key: String(out.json.live_key) })).status).toBe(200);
    expect((await h.request('GET', '/api/v1/lines', { key: String(out.json.service_test_key) })).status).toBe(401);
  });

  it('workspace create, user add, key create with scopes, service-key create, payment-method add', () => {
    const ws = cli('workspace', 'create', '--name', 'Acme', '--owner-email', `ops+${Date.now()}@acme.test`, '--json');
    expect(ws.status).toBe(0);
    const workspace = String(ws.json.workspace_id);

    const key = cli('key', 'create', '--workspace', workspace, '--env', 'live', '--scopes', 'read,numbers:read', '--json');
    expect(key.status).toBe(0);
    expect(key.json).toMatchObject({
      environment: 'live',
      kind: 'standard',
      scopes: ['read', 'numbers:read'],
      key: expect.stringMatching(/^sk_live_/),
    });

    const member = cli('user', 'add', '--workspace', workspace, '--email', `m+${Date.now()}@acme.test`, '--role', 'member', '--json');
    expect(member.status).toBe(0);
    const refused = cli(
      'key',
      'create',
      '--workspace',
      workspace,
      '--user',
      String(member.json.user_id),
      '--env',
      'test',
      '--scopes',
      'keys:admin',
      '--json',
    );
    expect(refused.status).toBe(1);
    expect(refused.json).toEqual({ error: { code: 'forbidden', message: 'role member cannot hold scopes: keys:admin' } });

    const svc = cli('service-key', 'create', '--workspace', workspace, '--env', 'test', '--json');
    expect(svc.status).toBe(0);
    expect(svc.json.key).toMatch(/^sk_svc_test_/);
    const revoked = cli('service-key', 'revoke', '--workspace', workspace, '--id', String(svc.json.id), '--json');
    expect(revoked.status).toBe(0);
    expect(revoked.json.revoked_at).toEqual(expect.any(String));

    const card = cli('payment-method', 'add', '--workspace', workspace, '--card', '4242 4242 4242 4242', '--exp', '12/39', '--json');
    expect(card.status).toBe(0);
    expect(card.json).toMatchObject({ brand: 'visa', last4: '4242', is_default: true });
  });

  it('records service key creation and revocation as compliance events', async () => {
    const ws = cli('workspace', 'create', '--name', 'Events', '--owner-email', `ev+${Date.now()}@acme.test`, '--json');
    const workspace = String(ws.json.workspace_id);
    const svc = cli('service-key', 'create', '--workspace', workspace, '--env', 'live', '--json');
    expect((await h.request('GET', '/v1/keys', { key: String(svc.json.key) })).status).toBe(200);
    cli('service-key', 'revoke', '--workspace', workspace, '--id', String(svc.json.id), '--json');
    // Another process revoked it: the API's key cache drops it on the revocation's NOTIFY, or at the latest after its
    // 1 s TTL (src/domain/keys/cache.ts); asserting at once raced that whenever the CLI exited quickly.
    await until(
      async () => (await h.request('GET', '/v1/keys', { key: String(svc.json.key) })).status === 401,
      'the revoked service key refused',
      {
        timeoutMs: 5_000,
        intervalMs: 50,
      },
    );
    const events = await h.db('compliance_events').where({ workspace_id: workspace }).orderBy('created_at');
    expect(events.map((e) => [e.event_type, e.environment, e.metadata.key_id])).toEqual([
      ['service_key_created', 'live', svc.json.id],
      ['service_key_revoked', 'live', svc.json.id],
    ]);
  });

  it('number grant, list and revoke: one workspace per number and environment (issue 26)', () => {
    const create = (name: string) =>
      String(cli('workspace', 'create', '--name', name, '--owner-email', `${name}+${Date.now()}@acme.test`, '--json').json.workspace_id);
    const [mine, theirs] = [create('grants'), create('others')];
    const number = `+1564555${2000 + Math.floor(Math.random() * 8000)}`;
    const granted = cli('number', 'grant', '--workspace', mine, '--env', 'test', '--number', number, '--json');
    expect(granted).toMatchObject({ status: 0, json: { phone_number: number, environment: 'test', granted: true } });
    expect(cli('number', 'grant', '--workspace', mine, '--env', 'test', '--number', number, '--json').status).toBe(0);
    expect(cli('number', 'grant', '--workspace', theirs, '--env', 'test', '--number', number, '--json')).toMatchObject({
      status: 1,
      json: { error: { code: 'conflict' } },
    });
    // Each environment has its own carrier account: the live grant is another one.
    expect(cli('number', 'grant', '--workspace', theirs, '--env', 'live', '--number', number, '--json').status).toBe(0);
    expect(cli('number', 'grant', '--workspace', mine, '--env', 'test', '--number', '415-555-0123', '--json')).toMatchObject({
      status: 1,
      json: { error: { code: 'invalid_argument' } },
    });
    expect(cli('number', 'list', '--workspace', mine, '--env', 'test', '--json').json).toEqual({
      numbers: [{ phone_number: number, granted_at: expect.any(String) }],
    });
    expect(cli('number', 'revoke', '--workspace', mine, '--env', 'test', '--number', number, '--json').status).toBe(0);
    expect(cli('number', 'revoke', '--workspace', mine, '--env', 'test', '--number', number, '--json').json).toMatchObject({
      error: { code: 'not_found' },
    });
    expect(cli('number', 'grant', '--workspace', theirs, '--env', 'test', '--number', number, '--json').status).toBe(0);
  });

  it('fails clearly: unknown workspace, bad environment, declined card, unknown command', () => {
    const missing = cli('key', 'create', '--workspace', '00000000-0000-0000-0000-000000000000', '--env', 'test', '--json');
    expect(missing.status).toBe(1);
    expect(missing.json).toMatchObject({ error: { code: 'not_found' } });

    const ws = cli('workspace', 'create', '--name', 'B', '--owner-email', `b+${Date.now()}@b.test`, '--json');
    const badEnv = cli('key', 'create', '--workspace', String(ws.json.workspace_id), '--env', 'prod', '--json');
    expect(badEnv.json).toEqual({ error: { code: 'invalid_argument', message: '--env must be test or live' } });

    const declined = cli(
      'payment-method',
      'add',
      '--workspace',
      String(ws.json.workspace_id),
      '--card',
      '4000000000000002',
      '--exp',
      '12/39',
      '--json',
    );
    expect(declined.status).toBe(1);
    expect(declined.json).toEqual({ error: { code: 'card_declined', message: 'the card was declined (generic_decline)' } });

    const unknown = cli('frobnicate');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });
});
