import crypto from 'node:crypto';
import { CALLEE } from '../support/customer';
import { eventually } from '../support/harness';
import { PortalClient, type PortalResponse, signInMember, signUpOperator, createLineInPortal } from '../support/portalClient';
import { useSuite } from '../support/suite';

/** Lines and calls in the portal over HTTP: editing a line, test calls, the calls list's filters, a call's page, and their refusals. */
describe('portal lines and calls', () => {
  const { h } = useSuite({ portal: true, worker: true });
  beforeEach(() => {
    h.config.temporalUiUrl = undefined;
  });

  const operator = () => signUpOperator(h, 'calls');

  async function hostedLine(client: PortalClient, name = 'Desk'): Promise<string> {
    return (await createLineInPortal(client, { name, mode: 'hosted', system_prompt: 'You answer the front desk.' })).lineId;
  }

  /** The line page's edit form as it stands, with `changes` typed over it (what a browser posts). */
  async function editForm(client: PortalClient, lineId: string, changes: Record<string, string>): Promise<Record<string, string>> {
    const page = await client.get(`/portal/lines/${lineId}?env=test`);
    expect(page.status).toBe(200);
    const form = /<form method="post" action="\/portal\/lines\/[^"]+" class="card" aria-label="Edit line"[^>]*>([\s\S]*?)<\/form>/.exec(
      page.text,
    )![1];
    const fields: Record<string, string> = {};
    for (const [, name, value] of form.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields[name] = value;
    for (const [, name, value] of form.matchAll(/<textarea[^>]*name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) fields[name] = value;
    for (const [, name, options] of form.matchAll(/<select[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g))
      fields[name] = /<option value="([^"]*)"\s+selected/.exec(options)?.[1] ?? '';
    for (const [, name] of form.matchAll(/<input type="checkbox" name="([^"]+)" checked/g)) fields[name] = 'on';
    const unescape = (text: string) =>
      text
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
    return { ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, unescape(value)])), ...changes };
  }

  const shownError = (page: PortalResponse) => /<strong class="code">([^<]+)<\/strong>/.exec(page.text)?.[1];

  it('edits a line through the use case of PATCH /lines/{id}, showing the API’s refusals on the page', async () => {
    const { client } = await operator();
    const lineId = await hostedLine(client);

    const saved = await client.post(
      `/portal/lines/${lineId}`,
      await editForm(client, lineId, { name: 'Front desk', begin_message: 'Hello there.' }),
    );
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe(`/portal/lines/${lineId}?env=test&saved=1`);
    const line = await h.db('lines').where({ id: lineId }).first();
    expect(line).toMatchObject({ name: 'Front desk', begin_message: 'Hello there.', mode: 'hosted', language: 'multi' });
    expect((await client.get(`/portal/lines/${lineId}?env=test&saved=1`)).text).toContain('Line saved.');

    // The schema of the API's body: a context limit that is not a number, named by field.
    const notNumber = await client.post(`/portal/lines/${lineId}`, await editForm(client, lineId, { context_limit: 'lots' }));
    expect(notNumber.status).toBe(422);
    expect(shownError(notNumber)).toBe('validation_error');
    expect(notNumber.text).toContain('<code>context_limit</code>');
    // What was typed is shown again.
    expect(notNumber.text).toContain('value="lots"');

    // The use case's rules: webhook mode needs its URL. A hosted line has no language field (it detects the language):
    // one posted anyway is left out, so it is not pinned (issue 30: the form takes the chosen mode's fields only).
    const pinned = await client.post(`/portal/lines/${lineId}`, await editForm(client, lineId, { language: 'en' }));
    expect(pinned.status).toBe(303);
    expect(await h.db('lines').where({ id: lineId }).first()).toMatchObject({ language: 'multi' });
    const noUrl = await client.post(`/portal/lines/${lineId}`, await editForm(client, lineId, { mode: 'webhook' }));
    expect(noUrl.status).toBe(422);
    expect(noUrl.text).toContain('<code>webhook_url</code> Required when mode is webhook');
    // A script asking for JSON gets the API's error envelope.
    const json = await client.post(`/portal/lines/${lineId}`, await editForm(client, lineId, { name: '' }), { accept: 'application/json' });
    expect(json.status).toBe(422);
    expect(JSON.parse(json.text).error).toMatchObject({ code: 'validation_error', details: [{ field: 'name' }] });
    expect(await h.db('lines').where({ id: lineId }).first()).toMatchObject({ name: 'Front desk', mode: 'hosted', language: 'multi' });
  });

  it('refuses a change without the CSRF token, another workspace’s line or call, and an edit by a member', async () => {
    const { client, workspaceId } = await operator();
    const lineId = await hostedLine(client);
    const form = await editForm(client, lineId, { name: 'Forged' });
    const { csrf_token: _dropped, ...withoutToken } = form;
    for (const [path, body] of [
      [`/portal/lines/${lineId}`, withoutToken],
      [`/portal/lines/${lineId}/calls`, { env: 'test', to_number: CALLEE, idempotency_key: crypto.randomUUID() }],
      [`/portal/calls/${crypto.randomUUID()}/hangup`, { env: 'test' }],
    ] as const) {
      const res = await client.post(path, body);
      expect(res.status).toBe(403);
      expect(shownError(res)).toBe('forbidden');
    }
    expect(await h.db('lines').where({ id: lineId }).first()).toMatchObject({ name: 'Desk' });
    expect(await h.db('calls').where({ line_id: lineId })).toEqual([]);

    const stranger = await operator();
    for (const path of [`/portal/lines/${lineId}?env=test`, '/portal/lines/not-a-uuid?env=test']) {
      const res = await stranger.client.get(path);
      expect(res.status).toBe(404);
      expect(shownError(res)).toBe('not_found');
    }
    const strangerEdit = await stranger.client.submit('/portal/lines?env=test', `/portal/lines/${lineId}`, { ...withoutToken });
    expect(strangerEdit.status).toBe(404);

    const memberClient = await signInMember(h.apiUrl, h.db, workspaceId);
    const memberPage = await memberClient.get(`/portal/lines/${lineId}?env=test`);
    expect(memberPage.text).toContain('Your role cannot change lines.');
    expect(memberPage.text).toContain('Place test call');
    const refused = await memberClient.submit(`/portal/lines/${lineId}?env=test`, `/portal/lines/${lineId}`, { ...withoutToken });
    expect(refused.status).toBe(403);
    expect(await h.db('lines').where({ id: lineId }).first()).toMatchObject({ name: 'Desk' });
  });

  it('places a test call through the use case of POST /calls: once per form, refused as the API refuses', async () => {
    const { client } = await operator();
    const lineId = await hostedLine(client);
    const page = await client.get(`/portal/lines/${lineId}?env=test`);
    const idempotencyKey = /name="idempotency_key" value="([^"]+)"/.exec(page.text)![1];

    const badNumber = await client.post(`/portal/lines/${lineId}/calls`, {
      csrf_token: PortalClient.csrfOf(page),
      env: 'test',
      to_number: '12',
      idempotency_key: idempotencyKey,
    });
    expect(badNumber.status).toBe(422);
    expect(badNumber.text).toContain('<code>to_number</code> Must be a valid phone number');

    const form = { csrf_token: PortalClient.csrfOf(page), env: 'test', to_number: CALLEE, idempotency_key: idempotencyKey };
    const placed = await client.post(`/portal/lines/${lineId}/calls`, form);
    expect(placed.status).toBe(303);
    const callId = /^\/portal\/calls\/([0-9a-f-]{36})\?env=test$/.exec(placed.headers.get('location')!)![1];
    const row = await h.db('calls').where({ id: callId }).first();
    expect(row).toMatchObject({ line_id: lineId, direction: 'outbound', to_number: CALLEE, actor_key_id: null, mode: 'hosted' });
    // The one-minute reserve is held as for any call.
    expect(
      await h
        .db('spend_holds')
        .where({ reference: `call:${callId}` })
        .first(),
    ).toBeDefined();

    // The same form again (a double click, a reload) is the same call.
    const again = await client.post(`/portal/lines/${lineId}/calls`, form);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(placed.headers.get('location'));
    // A new form while it is live: the line's one active call.
    const busy = await client.post(`/portal/lines/${lineId}/calls`, { ...form, idempotency_key: crypto.randomUUID() });
    expect(busy.status).toBe(409);
    expect(shownError(busy)).toBe('call_in_progress');
    expect(await h.db('calls').where({ line_id: lineId })).toHaveLength(1);

    // Once answered, the operator hangs it up from its page, as POST /calls/{id}/hangup does; the button goes with the call.
    await eventually(async () =>
      (await client.get(`/portal/calls/${callId}/live?env=test`)).text.includes('"in_progress"') ? true : undefined,
    );
    const callPage = await client.get(`/portal/calls/${callId}?env=test`);
    expect(callPage.text).toContain('href="/portal/calls/' + callId + '/hangup?env=test"');
    const hungUp = await client.post(`/portal/calls/${callId}/hangup`, {
      csrf_token: PortalClient.csrfOf(callPage),
      env: 'test',
      confirm: 'yes',
    });
    expect(hungUp.status).toBe(303);
    expect(hungUp.headers.get('location')).toBe(`/portal/calls/${callId}?env=test`);
    const ended = await eventually(async () => {
      const res = await client.get(`/portal/calls/${callId}/live?env=test`);
      return res.text.includes('hx-trigger') ? undefined : res;
    });
    expect(ended.text).toContain('data-call-status="completed"');
    expect(ended.text).not.toContain('/hangup');
    expect(await h.db('calls').where({ id: callId }).first()).toMatchObject({ status: 'completed', end_cause: 'api_hangup' });

    // Compliance applies: a line that checks consent refuses a number without it.
    const checked = await hostedLine(client, 'Checked');
    const switched = await client.post(`/portal/lines/${checked}`, await editForm(client, checked, { compliance_enabled: 'on' }));
    expect(switched.status).toBe(303);
    const checkedPage = await client.get(`/portal/lines/${checked}?env=test`);
    const consent = await client.post(`/portal/lines/${checked}/calls`, {
      csrf_token: PortalClient.csrfOf(checkedPage),
      env: 'test',
      to_number: CALLEE,
      idempotency_key: crypto.randomUUID(),
    });
    expect(consent.status).toBe(403);
    expect(shownError(consent)).toBe('consent_required');
  });

  it('filters the calls list by line, status and direction and pages it; a call page shows transcript, recording and the Temporal UI link', async () => {
    const { client, workspaceId } = await operator();
    const first = await hostedLine(client, 'First');
    const second = await hostedLine(client, 'Second');
    const lineRow = await h.db('lines').where({ id: first }).first();
    const base = Date.now() - 3_600_000;
    const rows = Array.from({ length: 55 }, (_, i) => ({
      id: crypto.randomUUID(),
      workspace_id: workspaceId,
      environment: 'test',
      line_id: i < 52 ? first : second,
      direction: i % 2 === 0 ? 'outbound' : 'inbound',
      from_number: lineRow.phone_number,
      to_number: CALLEE,
      status: i % 3 === 0 ? 'no_answer' : 'completed',
      mode: 'hosted',
      zone: 'A',
      created_at: new Date(base + i * 1000),
    }));
    await h.db('calls').insert(rows);
    const idsOf = (page: PortalResponse) => [...page.text.matchAll(/data-call-id="([^"]+)"/g)].map((m) => m[1]);

    const all = await client.get('/portal/calls?env=test');
    expect(idsOf(all)).toEqual(
      rows
        .slice(5)
        .reverse()
        .map((r) => r.id),
    );
    const olderHref = /id="older" href="([^"]+)"/.exec(all.text)![1].replace(/&amp;/g, '&');
    expect(idsOf(await client.get(olderHref))).toEqual(
      rows
        .slice(0, 5)
        .reverse()
        .map((r) => r.id),
    );

    const bySecond = await client.get(`/portal/calls?env=test&line_id=${second}`);
    expect(idsOf(bySecond)).toEqual(
      rows
        .slice(52)
        .reverse()
        .map((r) => r.id),
    );
    expect(bySecond.text).toMatch(new RegExp(`<option value="${second}"\\s+selected`));
    const filtered = await client.get(`/portal/calls?env=test&line_id=${first}&status=no_answer&direction=inbound`);
    const expected = rows.filter((r) => r.line_id === first && r.status === 'no_answer' && r.direction === 'inbound');
    expect(idsOf(filtered)).toEqual(expected.reverse().map((r) => r.id));
    expect(/id="older"/.test(filtered.text)).toBe(false);
    // A filter value that names nothing is the page's own 422 (issue 30; test/integration/portalFind.test.ts);
    // another workspace's line matches nothing of this one.
    const sideways = await client.get('/portal/calls?env=test&direction=sideways');
    expect([sideways.status, idsOf(sideways)]).toEqual([422, []]);
    const stranger = await operator();
    expect(idsOf(await stranger.client.get(`/portal/calls?env=test&line_id=${first}`))).toEqual([]);

    const callId = rows[54].id;
    await h
      .db('calls')
      .where({ id: callId })
      .update({
        recording_url: 'https://recordings.example.test/r1.wav',
        transcript: JSON.stringify([
          { role: 'assistant', text: 'Hello, front desk.', timestamp: new Date(base).toISOString() },
          { role: 'user', text: 'A table for two <please>', timestamp: new Date(base + 1000).toISOString() },
        ]),
      });
    const unlinked = await client.get(`/portal/calls/${callId}?env=test`);
    expect(unlinked.text).toContain('id="no-temporal-ui"');
    // The recording plays through the portal (test/integration/portalRecording.test.ts), never from the carrier's URL.
    expect(unlinked.text).toContain(`<a id="recording" href="/portal/calls/${callId}/recording?env=test" download>`);
    expect(unlinked.text).not.toContain('recordings.example.test');
    expect(unlinked.text).toMatch(/Hello, front desk\.[\s\S]*A table for two &lt;please&gt;/);
    h.config.temporalUiUrl = 'http://temporal-ui.example.test:8233';
    const linked = await client.get(`/portal/calls/${callId}?env=test`);
    expect(linked.text).toContain(
      `<a id="temporal-ui" href="http://temporal-ui.example.test:8233/namespaces/${h.config.temporalNamespace}/workflows/${callId}">`,
    );
    const noRecording = await client.get(`/portal/calls/${rows[53].id}?env=test`);
    expect(noRecording.text).toContain('id="no-recording"');

    const foreign = await stranger.client.get(`/portal/calls/${callId}?env=test`);
    expect(foreign.status).toBe(404);
    expect(shownError(foreign)).toBe('call_not_found');
  });
});
