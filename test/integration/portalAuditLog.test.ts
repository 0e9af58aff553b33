import { generate } from 'otplib';
import { CALLEE } from '../support/customer';
import {
  OPERATOR_PASSWORD,
  PortalClient,
  type PortalResponse,
  createLineInPortal,
  placeTestCallInPortal,
  signUpOperator,
} from '../support/portalClient';
import { joinAs, newEmail } from '../support/portalMembers';
import { useSuite } from '../support/suite';

/**
 * Issue 30, item 2 ("every action has an author"): each operator action taken in the portal is in its audit log with
 * the person (email), the address and the browser it came from, refusals included; another workspace never sees it;
 * a forged form is recorded nowhere; the log filters by person, action and time, and says so when nothing matches.
 */
describe('portal audit log: every action has an author', () => {
  const { h } = useSuite({ portal: true, worker: true });

  const codeFor = (secret: string) => generate({ secret, epoch: Math.floor(h.clock.now().getTime() / 1000) });

  /** A browser's user agent naming the step, so each record can be traced to the request that made it. */
  const agent = (step: string) => ({ 'user-agent': `Mozilla/5.0 (X11; Linux x86_64) AuditWalk/${step} Firefox/133.0` });

  interface Walk {
    owner: Awaited<ReturnType<typeof signUpOperator>>;
    lineId: string;
    /** Ids made along the way, for the steps that act on them. */
    made: Record<string, string>;
  }

  interface Step {
    action: string;
    /** The page a form is on, the form's action and its fields: the owner submits it as a browser would. */
    post?: (walk: Walk) => [page: string, action: string, form: Record<string, string>];
    /**
     * Or performs the action as an operator would; the answer's status is checked against `status` (an answer left
     * out was checked by the helper that gave it).
     */
    perform?: (walk: Walk, headers: Record<string, string>) => Promise<PortalResponse | void>;
    status: number;
    outcome?: 'succeeded' | 'refused';
    /** Details the record must hold. */
    details?: Record<string, string>;
    /** The environment of the record (null: the whole workspace's). */
    environment: 'test' | null;
  }

  const onPage = (client: PortalClient, page: string, action: string, form: Record<string, string>, headers: Record<string, string>) =>
    client.submit(page, action, form, headers);

  /** A step that submits a fixed form of the owner's: its page, action and fields. */
  const formStep = (
    action: string,
    status: number,
    environment: Step['environment'],
    post: [page: string, action: string, form: Record<string, string>],
    details?: Record<string, string>,
  ): Step => ({ action, status, environment, details, post: () => post });

  const STEPS: Step[] = [
    {
      action: 'session.signed_in',
      outcome: 'refused',
      status: 401,
      environment: null,
      perform: (w, headers) =>
        new PortalClient(h.apiUrl).submit('/portal/login', '/portal/login', { email: w.owner.email, password: 'wrong password!' }, headers),
    },
    {
      action: 'session.signed_in',
      status: 303,
      environment: null,
      perform: (w, headers) =>
        new PortalClient(h.apiUrl).submit('/portal/login', '/portal/login', { email: w.owner.email, password: OPERATOR_PASSWORD }, headers),
    },
    formStep(
      'line.created',
      201,
      'test',
      ['/portal/lines?env=test', '/portal/lines', { env: 'test', name: 'Audited desk', mode: 'hosted', system_prompt: 'Hi' }],
      { name: 'Audited desk', mode: 'hosted' },
    ),
    {
      action: 'line.updated',
      status: 303,
      environment: 'test',
      details: { changed: 'name' },
      perform: async (w, headers) => {
        const page = await w.owner.client.get(`/portal/lines/${w.lineId}?env=test`);
        return w.owner.client.post(
          `/portal/lines/${w.lineId}`,
          { ...lineForm(page.text), csrf_token: PortalClient.csrfOf(page), env: 'test', name: 'Renamed desk' },
          headers,
        );
      },
    },
    {
      action: 'line.secret_rotated',
      status: 200,
      environment: 'test',
      post: (w) => ['/portal/lines?env=test', `/portal/lines/${w.lineId}/rotate-secret`, { env: 'test', confirm: 'yes' }],
    },
    {
      action: 'call.placed',
      status: 303,
      environment: 'test',
      details: { to_number: CALLEE },
      // The helper checks its own answer (303 to the new call's page).
      perform: async (w, headers) => {
        w.made.call = await placeTestCallInPortal(w.owner.client, w.lineId, CALLEE, headers);
      },
    },
    {
      action: 'call.hung_up',
      status: 303,
      environment: 'test',
      post: (w) => [`/portal/calls/${w.made.call}?env=test`, `/portal/calls/${w.made.call}/hangup`, { env: 'test', confirm: 'yes' }],
    },
    {
      action: 'member.invited',
      status: 201,
      environment: null,
      details: { role: 'member' },
      perform: (w, headers) => {
        w.made.inviteeEmail = newEmail('invitee');
        return onPage(w.owner.client, '/portal/members', '/portal/members/invite', { email: w.made.inviteeEmail, role: 'member' }, headers);
      },
    },
    {
      action: 'invitation.revoked',
      status: 303,
      environment: null,
      perform: async (w, headers) => {
        const invitation = await h.db('member_invitations').where({ workspace_id: w.owner.workspaceId }).whereNull('revoked_at').first();
        w.made.invitation = invitation.id;
        return onPage(w.owner.client, '/portal/members', `/portal/invitations/${invitation.id}/revoke`, { confirm: 'yes' }, headers);
      },
    },
    {
      action: 'member.role_changed',
      status: 303,
      environment: null,
      details: { role: 'admin' },
      perform: async (w, headers) => {
        const member = await joinAs(h, w.owner.client, 'member');
        w.made.member = member.userId;
        return onPage(
          w.owner.client,
          '/portal/members',
          `/portal/members/${member.userId}/role`,
          { role: 'admin', confirm: 'yes' },
          headers,
        );
      },
    },
    {
      action: 'member.removed',
      status: 303,
      environment: null,
      post: (w) => ['/portal/members', `/portal/members/${w.made.member}/remove`, { confirm: 'yes' }],
    },
    formStep('service_key.minted', 201, 'test', ['/portal/keys?env=test', '/portal/keys', { env: 'test', name: 'Audited service key' }], {
      name: 'Audited service key',
    }),
    {
      action: 'service_key.revoked',
      status: 303,
      environment: 'test',
      perform: async (w, headers) => {
        const key = await h.db('api_keys').where({ workspace_id: w.owner.workspaceId, name: 'Audited service key' }).first();
        return onPage(w.owner.client, '/portal/keys?env=test', `/portal/keys/${key.id}/revoke`, { env: 'test', confirm: 'yes' }, headers);
      },
    },
    formStep(
      'api_key.minted',
      201,
      'test',
      ['/portal/api-keys?env=test', '/portal/api-keys', { env: 'test', name: 'Audited key', 'scope.numbers:read': 'on' }],
      { name: 'Audited key', scope: 'numbers:read' },
    ),
    formStep(
      'compliance.opt_out_added',
      303,
      'test',
      ['/portal/compliance?env=test', '/portal/compliance/opt-outs', { env: 'test', phone_number: '+14155550142' }],
      { phone_number: '+14155550142' },
    ),
    formStep(
      'billing.auto_charge_changed',
      303,
      'test',
      ['/portal/billing?env=test', '/portal/billing/auto-charge', { env: 'test', enabled: 'on', threshold: '5', amount: '20' }],
      { enabled: 'on', threshold: '5', amount: '20' },
    ),
    {
      action: 'two_factor.setup_started',
      status: 200,
      environment: null,
      perform: async (w, headers) => {
        const started = await onPage(w.owner.client, '/portal/security', '/portal/security/two-factor', {}, headers);
        w.made.totpSecret = /data-totp-secret>([A-Z2-7]+)</.exec(started.text)![1];
        return started;
      },
    },
    {
      action: 'two_factor.enabled',
      status: 200,
      environment: null,
      perform: async (w, headers) =>
        onPage(
          w.owner.client,
          '/portal/security',
          '/portal/security/two-factor/confirm',
          { code: await codeFor(w.made.totpSecret) },
          headers,
        ),
    },
    formStep('two_factor.requirement_changed', 303, null, ['/portal/security', '/portal/security/require', { required: 'false' }], {
      required: 'false',
    }),
    formStep('two_factor.disabled', 303, null, [
      '/portal/security',
      '/portal/security/two-factor/remove',
      { password: OPERATOR_PASSWORD, confirm: 'yes' },
    ]),
    {
      action: 'account.password_changed',
      outcome: 'refused',
      status: 401,
      environment: null,
      post: (_w) => [
        '/portal/settings',
        '/portal/settings/password',
        { current_password: 'not my password', new_password: 'a new password!' },
      ],
    },
    formStep('session.signed_out', 303, null, ['/portal', '/portal/logout', {}]),
  ];

  /** The line page's edit form as it stands (what a browser posts back). */
  function lineForm(page: string): Record<string, string> {
    const form = /aria-label="Edit line"[^>]*>([\s\S]*?)<\/form>/.exec(page)![1];
    const fields: Record<string, string> = {};
    for (const [, name, value] of form.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields[name] = value;
    for (const [, name, value] of form.matchAll(/<textarea[^>]*name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) fields[name] = value;
    for (const [, name, options] of form.matchAll(/<select[^>]*name="([^"]+)">([\s\S]*?)<\/select>/g))
      fields[name] = /<option value="([^"]*)"\s+selected/.exec(options)?.[1] ?? '';
    for (const [, name] of form.matchAll(/<input type="checkbox" name="([^"]+)" checked/g)) fields[name] = 'on';
    return fields;
  }

  it('records each action of the walk with its author, address and browser, shows it readably, and keeps it from other workspaces', async () => {
    const owner = await signUpOperator(h, 'audited');
    const { lineId } = await createLineInPortal(owner.client, { name: 'Walk desk', mode: 'hosted', system_prompt: 'You answer.' });
    const walk: Walk = { owner, lineId, made: {} };
    const outsider = await signUpOperator(h, 'outsider');

    for (const [index, step] of STEPS.entries()) {
      const label = `${index}-${step.action}`;
      const answer = (step.post
        ? await owner.client.submit(...step.post(walk), agent(label))
        : await step.perform!(walk, agent(label))) ?? {
        status: step.status,
        text: '',
      };
      expect({ label, status: answer.status, page: answer.status === step.status ? '' : answer.text.slice(0, 2000) }).toEqual({
        label,
        status: step.status,
        page: '',
      });
      const row = await h
        .db('portal_actions')
        .whereRaw('user_agent like ?', [`%AuditWalk/${label} %`])
        .first();
      expect({ label, row }).toEqual({
        label,
        row: expect.objectContaining({
          workspace_id: owner.workspaceId,
          user_id: owner.userId,
          email: owner.email.toLowerCase(),
          action: step.action,
          outcome: step.outcome ?? 'succeeded',
          environment: step.environment,
          client_address: expect.stringMatching(/127\.0\.0\.1|::1/),
          details: expect.objectContaining(step.details ?? {}),
        }),
      });
    }
    // Nothing secret is recorded: no password, no token, no CSRF value.
    const recorded = JSON.stringify(await h.db('portal_actions').where({ workspace_id: owner.workspaceId }).select('details'));
    expect(recorded).not.toMatch(/password|csrf|wrong password|not my password/i);

    // The audit page shows each with the person's email, the address and the browser, in words rather than JSON.
    const reader = new PortalClient(h.apiUrl);
    await reader.submit('/portal/login', '/portal/login', { email: owner.email, password: OPERATOR_PASSWORD });
    const page = (await reader.get('/portal/audit?env=test')).text;
    for (const step of STEPS)
      expect({ action: step.action, shown: page.includes(`data-action="${step.action}"`) }).toEqual({ action: step.action, shown: true });
    const refusedSignIn = /<tr data-action="session.signed_in" data-outcome="refused"[^>]*>([\s\S]*?)<\/tr>/.exec(page)![1];
    expect(refusedSignIn).toContain('Signed in');
    expect(refusedSignIn).toContain('refused: invalid_credentials');
    // Cells are found by their markers, whatever other attributes a cell carries.
    expect(/<td[^>]* data-portal-user[^>]*>([^<]*)<\/td>/.exec(refusedSignIn)?.[1]).toBe(owner.email.toLowerCase());
    expect(/<td[^>]* data-address[^>]*>([^<]*)<\/td>/.exec(refusedSignIn)?.[1]).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    expect(refusedSignIn).toContain('<summary>Firefox 133 on Linux</summary>');
    const created = /<tr data-action="line.created" data-outcome="succeeded"[^>]*>([\s\S]*?)<\/tr>/.exec(page)![1];
    expect(created).toContain('Created a line');
    expect(created).toContain('<span class="audit-detail-name">name:</span> Audited desk');
    expect(page).not.toMatch(/\{&quot;/);

    // Another workspace's log holds none of it, in either environment.
    for (const env of ['test', 'live']) {
      const theirs = (await outsider.client.get(`/portal/audit?env=${env}`)).text;
      expect(theirs).not.toContain(owner.email.toLowerCase());
      expect(theirs).not.toContain('Audited desk');
    }
    // Workspace-wide actions show in the live log too; the test environment's line does not.
    const live = (await reader.get('/portal/audit?env=live')).text;
    expect(live).toContain('data-action="member.invited"');
    expect(live).not.toContain('data-action="line.created"');
  });

  it('records nothing for a forged form, and a refusal of a role as refused', async () => {
    const owner = await signUpOperator(h, 'forged');
    const { lineId } = await createLineInPortal(owner.client, { name: 'Forged desk', mode: 'hosted', system_prompt: 'You answer.' });
    const before = await h.db('portal_actions').where({ workspace_id: owner.workspaceId }).count<{ count: string }[]>('* as count');
    // A cross-site post riding the owner's session cookie, without the form's token: refused, and written nowhere.
    const forged = await owner.client.post(
      `/portal/lines/${lineId}/rotate-secret`,
      { env: 'test', confirm: 'yes' },
      { origin: 'https://evil.example' },
    );
    expect(forged.status).toBe(403);
    const after = await h.db('portal_actions').where({ workspace_id: owner.workspaceId }).count<{ count: string }[]>('* as count');
    expect(after[0].count).toBe(before[0].count);
    // A post that only shows the confirmation step did nothing, and is recorded as nothing; the confirmed one is the action.
    const confirmPage = `/portal/lines/${lineId}/rotate-secret?env=test`;
    const unconfirmed = await owner.client.submit(
      confirmPage,
      `/portal/lines/${lineId}/rotate-secret`,
      { env: 'test' },
      agent('unconfirmed'),
    );
    expect(unconfirmed.status).toBe(200);
    expect(await h.db('portal_actions').whereRaw('user_agent like ?', ['%AuditWalk/unconfirmed %'])).toHaveLength(0);
    const rotate = (step: string) =>
      owner.client.submit(confirmPage, `/portal/lines/${lineId}/rotate-secret`, { env: 'test', confirm: 'yes' }, agent(step));
    const confirmed = await rotate('confirmed');
    expect(confirmed.status).toBe(200);
    expect(await h.db('portal_actions').whereRaw('user_agent like ?', ['%AuditWalk/confirmed %'])).toEqual([
      expect.objectContaining({ action: 'line.secret_rotated', outcome: 'succeeded', target_id: lineId, user_id: owner.userId }),
    ]);
    // The same confirmation from a stale tab (a secret is staged now, too young to promote): a refused attempt.
    const stale = await rotate('stale');
    expect(stale.status).toBe(409);
    expect(await h.db('portal_actions').whereRaw('user_agent like ?', ['%AuditWalk/stale %'])).toEqual([
      expect.objectContaining({
        action: 'line.secret_rotated',
        outcome: 'refused',
        refusal_code: 'secret_rotation_too_soon',
        user_id: owner.userId,
      }),
    ]);

    // A member may not mint service keys: the attempt is on the record as refused, with the member named.
    const member = await joinAs(h, owner.client, 'member');
    // Accepting the invitation is the new member's first action, on the workspace's record.
    expect(await h.db('portal_actions').where({ user_id: member.userId, action: 'invitation.accepted' })).toEqual([
      expect.objectContaining({
        workspace_id: owner.workspaceId,
        outcome: 'succeeded',
        environment: null,
        email: member.email.toLowerCase(),
      }),
    ]);
    const refused = await member.client.submit(
      '/portal/keys?env=test',
      '/portal/keys',
      { env: 'test', name: 'Not mine' },
      agent('member-mint'),
    );
    expect(refused.status).toBe(403);
    const row = await h.db('portal_actions').whereRaw('user_agent like ?', ['%AuditWalk/member-mint %']).first();
    expect(row).toMatchObject({ user_id: member.userId, action: 'service_key.minted', outcome: 'refused', refusal_code: 'forbidden' });
    // A failed sign-in of an address no account has belongs to no workspace's log.
    const stranger = newEmail('nobody');
    await new PortalClient(h.apiUrl).submit('/portal/login', '/portal/login', { email: stranger, password: 'whatever it is' });
    expect(await h.db('portal_actions').where({ email: stranger.toLowerCase() })).toHaveLength(0);
  });

  it('pages beyond its first page with the filters kept, and exports them as CSV: every entry once, safe in a spreadsheet, its own workspace only', async () => {
    const owner = await signUpOperator(h, 'paged');
    const outsider = await signUpOperator(h, 'paged-outsider');
    // 55 opt-outs: each is a portal action and a compliance event, so both sources cross the page boundary.
    const token = PortalClient.csrfOf(await owner.client.get('/portal/compliance?env=test'));
    for (let i = 0; i < 55; i++) {
      const added = await owner.client.post(
        '/portal/compliance/opt-outs',
        { csrf_token: token, env: 'test', phone_number: `+1415555${String(100 + i).padStart(4, '0')}` },
        i === 0 ? { 'user-agent': '=HYPERLINK("https://evil.example","click")' } : {},
      );
      expect(added.status).toBe(303);
    }
    const idsOn = (text: string) => [...text.matchAll(/<tr [^>]*data-entry-id="([0-9a-f-]{36})"/g)].map((m) => m[1]);
    const today = h.clock.now().toISOString().slice(0, 10);
    const first = await owner.client.get(`/portal/audit?env=test&from=${today}`);
    expect(first.status).toBe(200);
    const firstIds = idsOn(first.text);
    expect(firstIds).toHaveLength(100);
    const older = /<a id="older" href="([^"]+)"/.exec(first.text)![1].replace(/&amp;/g, '&');
    expect(new URL(older, h.apiUrl).searchParams.get('from')).toBe(today);
    const second = await owner.client.get(older);
    const secondIds = idsOn(second.text);
    expect(second.text).not.toContain('id="older"');
    // Every entry of the environment's log once, across both pages, newest first.
    const portalIds = (
      await h
        .db('portal_actions')
        .where({ workspace_id: owner.workspaceId })
        .andWhere((scope) => scope.where({ environment: 'test' }).orWhereNull('environment'))
        .select('id')
    ).map((r) => r.id as string);
    const eventIds = (await h.db('compliance_events').where({ workspace_id: owner.workspaceId, environment: 'test' }).select('id')).map(
      (r) => r.id as string,
    );
    expect([...firstIds, ...secondIds].sort()).toEqual([...portalIds, ...eventIds].sort());
    expect(new Set([...firstIds, ...secondIds]).size).toBe(firstIds.length + secondIds.length);
    expect(secondIds.length).toBeGreaterThan(10);
    // A forged cursor is the page's own error.
    expect((await owner.client.get('/portal/audit?env=test&cursor=yesterday')).status).toBe(422);

    // The CSV holds what both pages hold, in the same order, with the same filters.
    const csvLink = /<a id="audit-csv" href="([^"]+)"/.exec(first.text)![1].replace(/&amp;/g, '&');
    expect(new URL(csvLink, h.apiUrl).searchParams.get('from')).toBe(today);
    const csv = await owner.client.get(csvLink);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const records = csv.text.split('\r\n').filter(Boolean);
    expect(records[0]).toBe(
      'id,created_at,source,action,outcome,refusal_code,person,user_id,actor,client_address,user_agent,phone_number,line_id,target_id,details',
    );
    expect(records.slice(1).map((line) => line.slice(0, 36))).toEqual([...firstIds, ...secondIds]);
    // A cell a spreadsheet would run as a formula is written as text.
    expect(csv.text).toContain(`'=HYPERLINK(""https://evil.example"",""click"")`);
    expect(csv.text).not.toMatch(/,=HYPERLINK/);
    // Filtered: only the opt-outs, each naming its author and number.
    const optOuts = (await owner.client.get('/portal/audit.csv?env=test&event_type=compliance.opt_out_added')).text
      .split('\r\n')
      .filter(Boolean);
    expect(optOuts).toHaveLength(56);
    expect(optOuts[1]).toContain(
      `,portal_action,compliance.opt_out_added,succeeded,,${owner.email.toLowerCase()},${owner.userId},operator,`,
    );
    // Another workspace's export holds none of it; a bad filter is refused.
    const theirs = await outsider.client.get('/portal/audit.csv?env=test');
    expect(theirs.text).not.toContain(owner.email.toLowerCase());
    expect((await owner.client.get('/portal/audit.csv?env=test&event_type=line.exploded')).status).toBe(422);
  });

  it('filters by person, action and time; a bad filter is the page’s own error; an empty result says so', async () => {
    const owner = await signUpOperator(h, 'filtered');
    const admin = await joinAs(h, owner.client, 'admin');
    await createLineInPortal(owner.client, { name: 'Owner line', mode: 'hosted', system_prompt: 'You answer.' });
    await createLineInPortal(admin.client, { name: 'Admin line', mode: 'hosted', system_prompt: 'You answer.' });
    const shown = async (query: string) => {
      const res = await owner.client.get(`/portal/audit?env=test&${query}`);
      expect(res.status).toBe(200);
      return [...res.text.matchAll(/<tr data-action="([^"]+)"[^>]*>[\s\S]*?<td[^>]* data-portal-user[^>]*>([^<]*)<\/td>/g)].map(
        (m) => `${m[1]} ${m[2]}`,
      );
    };
    expect(await shown(`person=${admin.userId}&event_type=line.created`)).toEqual([`line.created ${admin.email.toLowerCase()}`]);
    expect(await shown(`event_type=line.created`)).toEqual([
      `line.created ${admin.email.toLowerCase()}`,
      `line.created ${owner.email.toLowerCase()}`,
    ]);
    expect(await shown(`person=${owner.userId}&event_type=member.invited`)).toEqual([`member.invited ${owner.email.toLowerCase()}`]);
    const today = h.clock.now().toISOString().slice(0, 10);
    const tomorrow = new Date(h.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    expect(await shown(`event_type=line.created&from=${today}&to=${tomorrow}`)).toHaveLength(2);
    const none = await owner.client.get(`/portal/audit?env=test&event_type=line.created&to=${today}`);
    expect(none.status).toBe(200);
    expect(none.text).toContain('No events match.');

    // Bad values: the page again with its own error naming each field, nothing crashes.
    const stranger = await signUpOperator(h, 'stranger');
    for (const query of ['person=not-a-uuid', `person=${stranger.userId}`, 'event_type=line.exploded', 'from=yesterday', 'to=2026-13-40']) {
      const res = await owner.client.get(`/portal/audit?env=test&${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
      expect(res.text).toContain('validation_error');
      expect(res.text).toContain('Filter the audit log');
    }
  });
});
