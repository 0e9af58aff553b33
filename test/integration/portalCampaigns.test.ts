import crypto from 'node:crypto';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { bucketFor, RATE_LIMITS } from '../../src/domain/limits/policies';
import { PortalClient, type PortalResponse, signInMember, signUpOperator, createLineInPortal } from '../support/portalClient';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';
import { until, untilWorkflowSettled } from '../support/waits';
import { calleeNumbers } from '../support/campaigns';

/**
 * Campaigns in the portal over HTTP (issue 31, item 2): the create form calling the API's use case with the API's
 * refusals in words, a campaign's page (its progress, per-contact results linked to their calls, the results CSV), the
 * list's filter and paging, pause / resume / cancel (behind its confirmation), and another workspace's campaign unseen.
 */
describe('portal campaigns', () => {
  const { h, receiver } = useSuite({ portal: true, worker: true, receiver: true });
  const sim = simulator(() => h);

  const shownError = (page: PortalResponse) => /<strong class="code">([^<]+)<\/strong>/.exec(page.text)?.[1];
  const fieldsShown = (page: PortalResponse) => [...page.text.matchAll(/<li><code>([^<]+)<\/code>/g)].map((m) => m[1]);
  /** This file's own callees, each handed out once (the simulator's outcomes are set per number). */
  const callees = calleeNumbers('+1415556', 1000, 9999);
  const freshNumber = () => callees(1)[0];
  const campaignIdOf = (res: PortalResponse) =>
    /^\/portal\/campaigns\/([0-9a-f-]{36})\?env=test&done=created$/.exec(res.headers.get('location') ?? '')?.[1];

  /** The create form's fields as the list page offers them (its CSRF token and one-use key), with `fields` typed in. */
  async function createForm(client: PortalClient, fields: Record<string, string>): Promise<Record<string, string>> {
    const page = await client.get('/portal/campaigns?env=test');
    expect(page.status).toBe(200);
    return {
      csrf_token: PortalClient.csrfOf(page),
      env: 'test',
      idempotency_key: /name="idempotency_key" value="([^"]+)"/.exec(page.text)![1],
      'retry_on.busy': 'on',
      'retry_on.no_answer': 'on',
      'retry_on.failed': 'on',
      ...fields,
    };
  }

  async function activeLine(client: PortalClient, name: string): Promise<string> {
    const { lineId } = await createLineInPortal(client, { name, mode: 'webhook', webhook_url: receiver.url });
    await until(async () => (await h.db('lines').where({ id: lineId }).first())?.status === 'active', `line ${name} active`, {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    return lineId;
  }

  it('creates a campaign from the form (its refusals in words), shows its progress and results, and ends polling when it ends', async () => {
    const { client, workspaceId } = await signUpOperator(h, 'campaigns');
    const campaignCount = async () => (await h.db('campaigns').where({ workspace_id: workspaceId }).count({ n: '*' }))[0].n;
    const [first, second] = [await activeLine(client, 'Pool one'), await activeLine(client, 'Pool two')];
    const [busy, unanswered, alsoBusy] = [freshNumber(), freshNumber(), freshNumber()];
    await sim.calls.setOutcome(busy, 'busy');
    await sim.calls.setOutcome(alsoBusy, 'busy');
    await sim.calls.setOutcome(unanswered, 'no_answer');

    const empty = await client.get('/portal/campaigns?env=test');
    expect(empty.text).toContain('id="no-campaigns"');
    // The pool offers the workspace's active lines.
    expect(empty.text).toContain(`name="line.${first}"`);
    expect(empty.text).toContain(`name="line.${second}"`);

    // Refusals, each shown on the form with what was typed: a contact list that is not JSON,
    const notJson = await client.post(
      '/portal/campaigns',
      await createForm(client, { [`line.${first}`]: 'on', contacts: '[{"to_number": ' }),
    );
    expect([notJson.status, shownError(notJson), fieldsShown(notJson)]).toEqual([422, 'validation_error', ['contacts']]);
    expect(notJson.text).toContain('[{&quot;to_number&quot;: </textarea');
    // the API schema's with its request rules (no line, a pace beyond the workspace's, a voicemail message without leaving
    // one, a NUL character Postgres cannot store), then the use
    // case's (more at once than the pool has lines).
    const schema = await client.post(
      '/portal/campaigns',
      await createForm(client, { name: 'Nul\u0000name', contacts: busy, calls_per_minute: '601', voicemail_message: 'Call us back.' }),
    );
    expect([schema.status, shownError(schema)]).toEqual([422, 'validation_error']);
    expect([...new Set(fieldsShown(schema))].sort()).toEqual([
      'answering_machine.action',
      'answering_machine.voicemail_message',
      'calls_per_minute',
      'line_ids',
      'name',
    ]);
    // A NUL character is refused where the API refuses it (its request rules), not sent on to Postgres.
    const nul = await client.post('/portal/campaigns', await createForm(client, { [`line.${first}`]: 'on', contacts: `${busy}\u0000` }));
    expect([nul.status, shownError(nul), fieldsShown(nul)]).toEqual([422, 'validation_error', ['contacts.0.to_number']]);
    expect(schema.text).toContain('value="601"');
    const useCase = await client.post(
      '/portal/campaigns',
      await createForm(client, { [`line.${first}`]: 'on', contacts: busy, max_concurrency: '2' }),
      { accept: 'application/json' },
    );
    expect(useCase.status).toBe(422);
    expect(JSON.parse(useCase.text).error).toMatchObject({ code: 'validation_error', details: [{ field: 'max_concurrency' }] });
    expect(await campaignCount()).toBe('0');

    const form = await createForm(client, {
      name: 'Reminders',
      [`line.${first}`]: 'on',
      [`line.${second}`]: 'on',
      contacts: `${busy}\n${unanswered}\n\nnot a number\n${alsoBusy}\n`,
      machine_detection: 'on',
    });
    const created = await client.post('/portal/campaigns', form);
    expect(created.status).toBe(303);
    const id = campaignIdOf(created)!;
    // The same form sent again (a double click, a reload) answers the same campaign: nobody is called twice.
    const again = await client.post('/portal/campaigns', form);
    expect(campaignIdOf(again)).toBe(id);
    const row = await h.db('campaigns').where({ id }).first();
    expect(row).toMatchObject({
      name: 'Reminders',
      line_ids: [first, second],
      calls_per_minute: 60,
      max_attempts: 1,
      machine_detection: true,
      answering_machine: null,
    });
    expect(await campaignCount()).toBe('1');

    const opened = await client.get(`/portal/campaigns/${id}?env=test&done=created`);
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('Campaign created');
    expect(opened.text).toMatch(/<title>Test mode · Reminders · Switchboard<\/title>/);
    expect(opened.text).toContain('Pool one');
    // Contacts in list order; the invalid number is skipped at once, with its reason in words.
    const rowsOf = (page: PortalResponse) =>
      [...page.text.matchAll(/<tr data-row="(\d+)" data-contact-status="([a-z]+)" data-outcome="([a-z_]*)"/g)].map((m) => m.slice(1));
    expect(rowsOf(opened).map(([rowNumber]) => rowNumber)).toEqual(['1', '2', '3', '4']);
    expect(rowsOf(opened)[2]).toEqual(['3', 'done', 'skipped']);
    expect(opened.text).toContain('data-skip-reason="invalid_number">Not a phone number</span>');

    await until(async () => (await h.db('campaigns').where({ id }).first())?.status === 'completed', `campaign ${id} completed`, {
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const ended = await client.get(`/portal/campaigns/${id}?env=test`);
    expect(ended.text).toContain('data-campaign-status="completed"');
    // Ended: its live part no longer asks to be reloaded.
    expect(ended.text).not.toContain(`hx-get="/portal/campaigns/${id}/live`);
    expect(/<dd data-outcome="busy">(\d+)<\/dd>/.exec(ended.text)?.[1]).toBe('2');
    expect(/<dd data-outcome="no_answer">(\d+)<\/dd>/.exec(ended.text)?.[1]).toBe('1');
    expect(ended.text).toContain('<progress id="campaign-progress" max="4" value="4"');
    const calls = await h.db('campaign_attempts').where({ campaign_id: id }).pluck('call_id');
    expect(calls).toHaveLength(3);
    for (const callId of calls) expect(ended.text).toContain(`href="/portal/calls/${callId}?env=test"`);
    // Each call's page names the campaign and the contact it was placed for.
    const [busyCall] = await h.db('calls').whereIn('id', calls).where({ to_number: busy }).pluck('id');
    expect((await client.get(`/portal/calls/${busyCall}?env=test`)).text).toMatch(
      new RegExp(
        `Placed by the campaign\\s+<a href="/portal/campaigns/${id}\\?env=test">Reminders</a>, for its contact on\\s+row 1 \\(attempt 1\\)`,
      ),
    );
    // No controls once ended.
    expect(ended.text).not.toContain('id="pause"');

    const live = await client.get(`/portal/campaigns/${id}/live?env=test`);
    expect([live.status, live.text.includes('<html'), live.text.includes('data-campaign-status="completed"')]).toEqual([200, false, true]);

    const csv = await client.get(`/portal/campaigns/${id}/results.csv?env=test`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const records = csv.text.trim().split('\r\n');
    expect(records[0]).toMatch(/^row,to_number,status,outcome,skip_reason,attempts/);
    expect(records.slice(1).map((record) => record.split(',')[0])).toEqual(['1', '2', '3', '4']);

    // The list, filtered by status; a status the list does not know is refused, naming the field.
    const listed = await client.get('/portal/campaigns?env=test&status=completed');
    expect(listed.text).toContain(`data-campaign-id="${id}"`);
    expect(listed.text).toContain('4 of 4 done');
    expect((await client.get('/portal/campaigns?env=test&status=running')).text).not.toContain(`data-campaign-id="${id}"`);
    const unknown = await client.get('/portal/campaigns?env=test&status=finished');
    expect([unknown.status, shownError(unknown), fieldsShown(unknown)]).toEqual([422, 'validation_error', ['status']]);

    // Paged by cursor, 50 a page: 50 older ended campaigns of this workspace (rows only: nothing to run) push it onto page 2's end.
    await h.db('campaigns').insert(
      Array.from({ length: 50 }, (_, index) => ({
        ...row,
        id: crypto.randomUUID(),
        name: `Older ${index}`,
        status: 'cancelled',
        created_at: new Date(row.created_at.getTime() + (index + 1) * 1000),
      })),
    );
    const firstPage = await client.get('/portal/campaigns?env=test');
    const listedIds = (page: PortalResponse) => [...page.text.matchAll(/data-campaign-id="([^"]+)"/g)].map((m) => m[1]);
    expect(listedIds(firstPage)).toHaveLength(50);
    expect(listedIds(firstPage)).not.toContain(id);
    const older = /<a id="older" href="([^"]+)"/.exec(firstPage.text)![1].replace(/&amp;/g, '&');
    expect(listedIds(await client.get(older))).toEqual([id]);
  });

  it('pauses, resumes and cancels (behind its confirmation) as the API does; another workspace sees none of it', async () => {
    const { client, workspaceId, userId } = await signUpOperator(h, 'campaign-control');
    const line = await activeLine(client, 'Pool');
    // Contacts (more than a page of 50), from tomorrow (UTC, as the date-and-time picker posts it): nobody is called while the test controls it.
    // 1,500 of them: more than the 16 KiB of the portal's other forms, which this one takes (up to the API's body limit).
    const numbers = Array.from({ length: 1_500 }, (_, index) => `+1415555${String(1000 + index)}`);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
    const created = await client.post(
      '/portal/campaigns',
      await createForm(client, { [`line.${line}`]: 'on', contacts: numbers.join('\n'), start_at: tomorrow }),
    );
    const id = campaignIdOf(created)!;
    const status = async () => (await h.db('campaigns').where({ id }).first()).status;
    expect((await h.db('campaigns').where({ id }).first()).contact_count).toBe(1_500);
    // Beyond the API's body limit: 413, as the API answers it.
    const tooLarge = await client.post(
      '/portal/campaigns',
      await createForm(client, { [`line.${line}`]: 'on', contacts: '1'.repeat(h.config.maxBodyBytes) }),
    );
    expect([tooLarge.status, shownError(tooLarge)]).toEqual([413, 'payload_too_large']);
    expect(await status()).toBe('scheduled');
    const page = await client.get(`/portal/campaigns/${id}?env=test`);
    expect(page.text).toContain(`hx-get="/portal/campaigns/${id}/live?env=test"`);
    const hidden = { csrf_token: PortalClient.csrfOf(page), env: 'test' };
    // Its contacts are paged by row: the first 50, then from row 51 (the live part keeps to the page shown).
    const rowNumbers = (text: string) => [...text.matchAll(/<tr data-row="(\d+)"/g)].map((m) => Number(m[1]));
    expect(rowNumbers(page.text)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
    expect(page.text).toContain(`href="/portal/campaigns/${id}?env=test&amp;after=50"`);
    const rest = await client.get(`/portal/campaigns/${id}?env=test&after=50`);
    expect(rowNumbers(rest.text)).toEqual(Array.from({ length: 50 }, (_, index) => index + 51));
    expect(rest.text).toContain(`hx-get="/portal/campaigns/${id}/live?env=test&amp;after=50"`);
    expect(rowNumbers((await client.get(`/portal/campaigns/${id}/live?env=test&after=1450`)).text)).toEqual(
      Array.from({ length: 50 }, (_, index) => index + 1451),
    );
    const badRow = await client.get(`/portal/campaigns/${id}?env=test&after=fifty`);
    expect([badRow.status, shownError(badRow), fieldsShown(badRow)]).toEqual([422, 'validation_error', ['after']]);

    const paused = await client.post(`/portal/campaigns/${id}/pause`, hidden);
    expect([paused.status, paused.headers.get('location')]).toEqual([303, `/portal/campaigns/${id}?env=test&done=pause`]);
    expect(await status()).toBe('paused');
    const pausedPage = await client.get(`/portal/campaigns/${id}?env=test&done=pause`);
    expect(pausedPage.text).toContain('Campaign paused');
    expect(pausedPage.text).toContain('id="resume"');
    expect((await client.post(`/portal/campaigns/${id}/resume`, hidden)).status).toBe(303);
    expect(await status()).toBe('scheduled');

    // Pausing and resuming spent the API's row, in the workspace's bucket its API keys share: once it is full, both refuse.
    const bucket = bucketFor('campaigns.control', { workspaceId, environment: 'test', userId, keyId: '' });
    expect((await h.db('rate_limit_windows').where({ bucket }).first()).hits).toHaveLength(2);
    const { limit } = RATE_LIMITS['campaigns.control'];
    await h
      .db('rate_limit_windows')
      .where({ bucket })
      .update({ hits: h.db.raw('array_fill(?::timestamptz, array[?::int])', [h.clock.now().toISOString(), limit]) });
    const limited = await client.post(`/portal/campaigns/${id}/pause`, hidden);
    expect([limited.status, shownError(limited)]).toEqual([429, 'rate_limited']);
    const user = (await h.db('users').where({ id: userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'api' })).plaintext;
    expect((await h.request('POST', `/api/v1/campaigns/${id}/pause`, { key })).status).toBe(429);
    expect(await status()).toBe('scheduled');
    await h.db('rate_limit_windows').where({ bucket }).delete();

    // A campaign that paused itself says why, in words, and resumes from the same button (as the dispatcher records it: rows only).
    // Its workflow, woken by the resume above, must be done with that step first: a step that found it paused for
    // funds the workspace has would resume it (`funds_returned`) before the page is read.
    await untilWorkflowSettled(h.temporal.workflow.getHandle(`campaign:${id}`));
    await h.db('campaigns').where({ id }).update({ status: 'paused', paused_reason: 'insufficient_credits' });
    const selfPaused = await client.get(`/portal/campaigns/${id}?env=test`);
    expect(selfPaused.text).toMatch(/data-paused-reason="insufficient_credits"\s*>: paused itself\. The balance ran out\./);
    expect((await client.post(`/portal/campaigns/${id}/resume`, hidden)).status).toBe(303);
    expect(await h.db('campaigns').where({ id }).first()).toMatchObject({ status: 'scheduled', paused_reason: null });

    // A plain member may create and control campaigns, as they may place and hang up calls (the same scopes).
    const member = await signInMember(h.apiUrl, h.db, workspaceId);
    expect((await member.get(`/portal/campaigns/${id}?env=test`)).text).toContain('id="pause"');
    expect((await member.get('/portal/campaigns?env=test')).text).toContain('Create campaign</button>');

    // Cancelling asks first, saying who is never called; a post without the confirmation changes nothing.
    const confirm = await client.get(`/portal/campaigns/${id}/cancel?env=test`);
    expect(confirm.text).toContain('The 1500 contacts still waiting are recorded as cancelled and never called.');
    expect((await client.post(`/portal/campaigns/${id}/cancel`, hidden)).status).toBe(200);
    expect(await status()).toBe('scheduled');
    const cancelled = await client.post(`/portal/campaigns/${id}/cancel`, { ...hidden, confirm: 'yes' });
    expect([cancelled.status, cancelled.headers.get('location')]).toEqual([303, `/portal/campaigns/${id}?env=test&done=cancel`]);
    expect(await status()).toBe('cancelled');
    expect(new Set(await h.db('campaign_contacts').where({ campaign_id: id }).pluck('outcome'))).toEqual(new Set(['cancelled']));

    // Ended: pausing is 409 campaign_ended on its page (the API's envelope to a script); the cancel confirmation is stale.
    const late = await client.post(`/portal/campaigns/${id}/pause`, hidden);
    expect([late.status, shownError(late)]).toEqual([409, 'campaign_ended']);
    const lateJson = await client.post(`/portal/campaigns/${id}/resume`, hidden, { accept: 'application/json' });
    expect([lateJson.status, JSON.parse(lateJson.text).error.code]).toEqual([409, 'campaign_ended']);
    expect((await client.get(`/portal/campaigns/${id}/cancel?env=test`)).text).toContain('This campaign has already ended (cancelled).');

    // Another workspace's operator: 404 on every path, nothing changed, nothing listed.
    const stranger = (await signUpOperator(h, 'campaign-stranger')).client;
    const strangerPage = await stranger.get('/portal/campaigns?env=test');
    expect(strangerPage.text).not.toContain(id);
    for (const path of ['', '/live', '/results.csv', '/cancel'])
      expect([path, (await stranger.get(`/portal/campaigns/${id}${path}?env=test`)).status]).toEqual([path, 404]);
    const strangerHidden = { csrf_token: PortalClient.csrfOf(strangerPage), env: 'test' };
    for (const action of ['pause', 'resume', 'cancel'])
      expect([action, (await stranger.post(`/portal/campaigns/${id}/${action}`, { ...strangerHidden, confirm: 'yes' })).status]).toEqual([
        action,
        404,
      ]);
    expect((await stranger.get('/portal/campaigns/not-a-uuid?env=test')).status).toBe(404);
  });
});
