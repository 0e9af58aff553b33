import crypto from 'node:crypto';
import { isOptedOut } from '../../src/domain/compliance/optOuts';
import { runCommand } from '../../src/main/cli';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { PortalClient, signInMember, signUpOperator } from '../support/portalClient';
import { joinAs } from '../support/portalMembers';
import { useSuite } from '../support/suite';

const NUMBER = '+14155550177';

/** The compliance page over HTTP: opt-outs as the CLI manages them, consent and disclosures, and the audit's filters. */
describe('portal compliance', () => {
  const { h } = useSuite({ portal: true });

  const operator = () => signUpOperator(h, 'compliance');

  it('adds and removes an opt-out as the CLI does, each in the audit log; refuses bad numbers, missing CSRF and a second removal', async () => {
    const { client, workspaceId, userId, email } = await operator();
    const tenant = { workspaceId, environment: 'test' as const };
    const added = await client.submit('/portal/compliance?env=test', '/portal/compliance/opt-outs', {
      env: 'test',
      phone_number: '+1 415 555 0177',
    });
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toBe('/portal/compliance?env=test');
    expect(await isOptedOut(h.db, tenant, NUMBER)).toBe(true);
    expect((await client.get('/portal/compliance?env=test')).text).toContain(`data-phone-number="${NUMBER}"`);
    expect((await client.get('/portal/compliance?env=live')).text).toContain('No opted-out numbers');
    // The CLI lists what the portal added, and the other way round.
    const listed = await runCommand(h.db, ['opt-out', 'list'], { workspace: workspaceId, env: 'test' });
    expect(listed.opt_outs).toEqual([expect.objectContaining({ phone_number: NUMBER, source: 'portal' })]);
    await runCommand(h.db, ['opt-out', 'add'], { workspace: workspaceId, env: 'test', number: '+14155550178' });
    expect((await client.get('/portal/compliance?env=test')).text).toContain('data-phone-number="+14155550178"');

    const bad = await client.submit('/portal/compliance?env=test', '/portal/compliance/opt-outs', {
      env: 'test',
      form: 'opt-out',
      phone_number: 'nope',
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('phone_number');
    expect(bad.text).toContain('value="nope"');
    expect((await client.post('/portal/compliance/opt-outs/remove', { env: 'test', phone_number: NUMBER, reason: 'x' })).status).toBe(403);
    expect(await isOptedOut(h.db, tenant, NUMBER)).toBe(true);
    // Erasing a STOP needs a reason, kept on the record.
    const unexplained = await client.submit('/portal/compliance?env=test', '/portal/compliance/opt-outs/remove', {
      env: 'test',
      phone_number: NUMBER,
      reason: '  ',
    });
    expect(unexplained.status).toBe(422);
    expect(unexplained.text).toContain('<code>reason</code>');
    expect(await isOptedOut(h.db, tenant, NUMBER)).toBe(true);

    const reason = 'Recipient called support and asked to receive reminders again';
    // The Remove button opens the confirmation (nothing changes), whose own button removes it.
    const asked = await client.submit('/portal/compliance?env=test', '/portal/compliance/opt-outs/remove', {
      env: 'test',
      phone_number: NUMBER,
      reason,
    });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('name="confirm" value="yes"');
    expect(await isOptedOut(h.db, tenant, NUMBER)).toBe(true);
    const removed = await client.submit('/portal/compliance?env=test', '/portal/compliance/opt-outs/remove', {
      env: 'test',
      phone_number: NUMBER,
      reason,
      confirm: 'yes',
    });
    expect(removed.status).toBe(303);
    expect(await isOptedOut(h.db, tenant, NUMBER)).toBe(false);
    const again = await client.submit('/portal/compliance?env=test', '/portal/compliance/opt-outs/remove', {
      env: 'test',
      phone_number: NUMBER,
      reason,
      confirm: 'yes',
    });
    expect(again.status).toBe(404);

    // Each change names the signed-in portal user; the opt-in also why.
    const events = await h.db('compliance_events').where({ workspace_id: workspaceId, phone_number: NUMBER });
    expect(events.map((e: { event_type: string }) => e.event_type).sort()).toEqual(['opt_in', 'opt_out']);
    for (const event of events) {
      expect(event.actor_key_id).toBeNull();
      expect(event.metadata).toMatchObject({ source: 'portal', user_id: userId, via: 'portal' });
    }
    expect(events.find((e: { event_type: string }) => e.event_type === 'opt_in').metadata.reason).toBe(reason);
    const audit = (await client.get(`/portal/audit?env=test&actor=operator&phone_number=${encodeURIComponent(NUMBER)}`)).text;
    expect(audit.match(/data-event-type="([^"]+)"/g)?.sort()).toEqual(['data-event-type="opt_in"', 'data-event-type="opt_out"']);
    expect(audit.match(/data-portal-user>([^<]*)<\/td>/g)).toEqual([
      `data-portal-user>${email.toLowerCase()}</td>`,
      `data-portal-user>${email.toLowerCase()}</td>`,
    ]);
  });

  it('lets a member add opt-outs (consent:write) but only an owner remove one, and never another workspace’s', async () => {
    const boss = await operator();
    const { workspaceId } = boss;
    const client = await signInMember(h.apiUrl, h.db, workspaceId);
    expect((await client.submit('/portal/compliance', '/portal/compliance/opt-outs', { env: 'test', phone_number: NUMBER })).status).toBe(
      303,
    );
    // A member, and an admin, are refused: the form is not offered and the post changes nothing.
    const admin = await joinAs(h, boss.client, 'admin');
    for (const notOwner of [client, admin.client]) {
      const page = await notOwner.get('/portal/compliance?env=test');
      expect(page.text).not.toContain('action="/portal/compliance/opt-outs/remove"');
      const erased = await notOwner.post('/portal/compliance/opt-outs/remove', {
        csrf_token: PortalClient.csrfOf(page),
        env: 'test',
        phone_number: NUMBER,
        reason: 'campaign keeps failing',
        confirm: 'yes',
      });
      expect(erased.status).toBe(403);
      expect(await isOptedOut(h.db, { workspaceId, environment: 'test' }, NUMBER)).toBe(true);
    }

    const other = await operator();
    expect((await other.client.get('/portal/compliance?env=test')).text).not.toContain(NUMBER);
    const theirs = await other.client.submit('/portal/compliance', '/portal/compliance/opt-outs/remove', {
      env: 'test',
      phone_number: NUMBER,
      reason: 'not mine',
      confirm: 'yes',
    });
    expect(theirs.status).toBe(404);
    expect(await isOptedOut(h.db, { workspaceId, environment: 'test' }, NUMBER)).toBe(true);
  });

  it('shows consent records and disclosures made on the API, and filters the audit by action, actor and date', async () => {
    const { client, userId } = await operator();
    const user = (await h.db('users').where({ id: userId }).first())!;
    const minted = await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'api' });
    const key = minted.plaintext;
    const line = await h.request('POST', '/api/v1/lines', { key, body: { name: 'Consenting', mode: 'hosted', system_prompt: 'x' } });
    expect(line.status).toBe(201);
    const consent = await h.request('POST', '/api/v1/consent', {
      key,
      body: { line_id: line.body.line.id, phone_number: NUMBER, consent_type: 'explicit_outbound', source: 'web_form' },
    });
    expect(consent.status).toBe(201);
    const disclosure = await h.request('POST', '/api/v1/disclosures', { key, body: { message: 'This call uses an AI assistant.' } });
    expect(disclosure.status).toBe(201);

    const page = (await client.get('/portal/compliance?env=test')).text;
    expect(page).toContain(`data-consent-id="${consent.body.consent.id}"`);
    expect(page).toContain('explicit_outbound');
    expect(page).toContain('web_form');
    expect(page).toContain('Consenting');
    expect(page).toContain(`data-disclosure-id="${disclosure.body.disclosure.id}"`);
    expect(page).toContain('This call uses an AI assistant.');
    const live = (await client.get('/portal/compliance?env=live')).text;
    expect(live).toContain('No consent recorded');
    expect(live).toContain('No disclosures');

    await client.submit('/portal/compliance?env=test', '/portal/compliance/opt-outs', { env: 'test', phone_number: '+14155550179' });
    const types = async (query: string) => {
      const res = await client.get(`/portal/audit?env=test&${query}`);
      expect(res.status).toBe(200);
      return [...res.text.matchAll(/data-event-type="([^"]+)"/g)].map((m) => m[1]).sort();
    };
    // By actor: the API key (by prefix or id) or the operator.
    expect(await types(`actor=${minted.row.key_prefix}`)).toEqual(['consent_granted', 'disclosure_default_changed']);
    expect(await types(`actor=${minted.row.id}&event_type=consent_granted`)).toEqual(['consent_granted']);
    expect(await types('actor=operator')).toEqual(['opt_out']);
    expect((await client.get(`/portal/audit?env=test&actor=${minted.row.key_prefix}`)).text).toContain(
      `<span class="mono">${minted.row.key_prefix}</span>`,
    );
    // By date: today's events are in [today, tomorrow) and none before today.
    const today = h.clock.now().toISOString().slice(0, 10);
    const tomorrow = new Date(h.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    expect(await types(`from=${today}&to=${tomorrow}`)).toEqual(['consent_granted', 'disclosure_default_changed', 'opt_out']);
    expect(await types(`to=${today}`)).toEqual([]);
    const unknown = await client.get('/portal/audit?env=test&actor=sk_test_nobody00');
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('actor');
  });
  it('grants and revokes consent and adds disclosures as the API does, with no acting key, each refusal answered as the API answers it', async () => {
    const { client, workspaceId, userId } = await operator();
    const user = (await h.db('users').where({ id: userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'api' })).plaintext;
    const line = await h.request('POST', '/api/v1/lines', { key, body: { name: 'Outbound', mode: 'hosted', system_prompt: 'x' } });
    const lineId = line.body.line.id;
    const grant = (fields: Record<string, string>) =>
      client.submit('/portal/compliance?env=test', '/portal/compliance/consent', {
        env: 'test',
        form: 'consent',
        line_id: lineId,
        ...fields,
      });

    expect((await grant({ phone_number: '+1 415 555 0180', consent_type: 'explicit_outbound', source: 'paper form' })).status).toBe(303);
    const checked = await h.request('GET', `/api/v1/consent?phone_number=${encodeURIComponent('+14155550180')}&line_id=${lineId}`, { key });
    expect(checked.body).toMatchObject({ status: 'active', consent: { consent_type: 'explicit_outbound', source: 'paper form' } });
    const twice = await grant({ phone_number: '+14155550180', consent_type: 'explicit_outbound' });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain('consent_already_granted');
    expect((await grant({ phone_number: '+14155550180', consent_type: 'sometimes' })).status).toBe(422);
    expect((await grant({ phone_number: '+14155550180', consent_type: 'explicit_outbound', line_id: crypto.randomUUID() })).status).toBe(
      404,
    );

    const revoke = () =>
      client.submit('/portal/compliance?env=test', '/portal/compliance/consent/revoke', {
        env: 'test',
        line_id: lineId,
        phone_number: '+14155550180',
        confirm: 'yes',
      });
    expect((await revoke()).status).toBe(303);
    const after = await h.request('GET', `/api/v1/consent?phone_number=${encodeURIComponent('+14155550180')}&line_id=${lineId}`, { key });
    expect(after.body.status).toBe('none');
    // Revoking it again (a second tab): what changed, never a 404.
    const stale = await revoke();
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('This consent is no longer active.');

    const add = (fields: Record<string, string>) =>
      client.submit('/portal/compliance?env=test', '/portal/compliance/disclosures', { env: 'test', form: 'disclosure', ...fields });
    expect((await add({ message: 'An AI assistant is on this call.', language: 'en', jurisdiction: 'US' })).status).toBe(303);
    expect((await add({ message: 'Hablas con una IA.', language: 'es', jurisdiction: 'ES' })).status).toBe(303);
    expect((await add({ message: 'A newer English one.', language: 'en', jurisdiction: 'US', is_default: 'on' })).status).toBe(303);
    const bad = await add({ message: '', language: 'multi', jurisdiction: 'U' });
    expect(bad.status).toBe(422);
    for (const field of ['message', 'language', 'jurisdiction']) expect(bad.text).toContain(`<code>${field}</code>`);
    const listed = await h.request('GET', '/api/v1/disclosures', { key });
    const defaults = listed.body.disclosures
      .filter((d: { is_default: boolean }) => d.is_default)
      .map((d: { message: string }) => d.message);
    expect(defaults.sort()).toEqual(['A newer English one.', 'Hablas con una IA.']);

    const events = await h.db('compliance_events').where({ workspace_id: workspaceId }).whereNull('actor_key_id');
    expect(events.map((e: { event_type: string }) => e.event_type).sort()).toEqual([
      'consent_granted',
      'consent_revoked',
      'disclosure_default_changed',
      'disclosure_default_changed',
      'disclosure_default_changed',
    ]);
    // Each names the portal user who made it (L21).
    for (const event of events) expect(event.metadata).toMatchObject({ user_id: userId, via: 'portal' });
  });
});
