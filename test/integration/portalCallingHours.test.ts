import { mintUserKey } from '../../src/domain/keys/userKeys';
import { createLineInPortal, PortalClient, signInMember, signUpOperator, type PortalResponse } from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * Calling hours in the portal (issue 31 item 1): owners and admins narrow the environment's window on the
 * settings page (what PATCH /api/v1/settings does), never widen it; a test call outside it is refused as the API refuses it.
 */
describe('portal: calling hours', () => {
  const { h } = useSuite({ portal: true, worker: true });
  afterEach(() => h.clock.callingHoursAt(null));
  const shownError = (page: PortalResponse) => /<strong class="code">([^<]+)<\/strong>/.exec(page.text)?.[1];
  const windowOf = async (workspaceId: string, environment: 'test' | 'live') =>
    (await h.db('billing_accounts').where({ workspace_id: workspaceId, environment }).first())?.calling_window ?? null;
  const save = (client: PortalClient, fields: Record<string, string>) =>
    client.submit('/portal/settings?env=test', '/portal/settings/calling-window', { env: 'test', ...fields });
  const WEEKDAYS = { 'day.mon': 'on', 'day.tue': 'on', 'day.wed': 'on', 'day.thu': 'on', 'day.fri': 'on' };

  it('an owner narrows the window and goes back to the legal one; a widening is the page’s 422 naming the field; a member only reads it', async () => {
    const owner = await signUpOperator(h, 'hours');
    const page = await owner.client.get('/portal/settings?env=test');
    expect(page.text).toContain(
      '<strong id="calling-window">the legal window only (08:00–21:00, and stricter national and state rules)</strong>',
    );

    const saved = await save(owner.client, { window: 'own', start: '09:30', end: '19:00', ...WEEKDAYS });
    expect(saved.status).toBe(200);
    expect(saved.text).toContain(
      'Calls in the test environment are placed 09:30–19:00 on Monday, Tuesday, Wednesday, Thursday, Friday, within the legal window.',
    );
    expect(await windowOf(owner.workspaceId, 'test')).toEqual({ start: '09:30', end: '19:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] });
    expect(await windowOf(owner.workspaceId, 'live')).toBeNull();
    // The API reads the same setting.
    const user = (await h.db('users').where({ id: owner.userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'k' })).plaintext;
    expect((await h.request('GET', '/api/v1/settings', { key })).body.calling_window).toEqual({
      start: '09:30',
      end: '19:00',
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
    });

    for (const [fields, field] of [
      [{ start: '07:00', end: '19:00', ...WEEKDAYS }, 'start'],
      [{ start: '09:00', end: '21:30', ...WEEKDAYS }, 'end'],
      [{ start: '09:00', end: '19:00' }, 'days'],
    ] as const) {
      const refused = await save(owner.client, { window: 'own', ...fields });
      expect([refused.status, shownError(refused)]).toEqual([422, 'validation_error']);
      expect(refused.text).toContain(`<code>${field}</code>`);
      // What was typed stays in the form.
      expect(refused.text).toContain(`value="${fields.start}"`);
    }
    expect((await windowOf(owner.workspaceId, 'test')).start).toBe('09:30');

    const member = await signInMember(h.apiUrl, h.db, owner.workspaceId);
    const memberPage = await member.get('/portal/settings?env=test');
    expect(memberPage.text).toContain('09:30–19:00 on Monday');
    expect(memberPage.text).not.toContain('action="/portal/settings/calling-window"');
    const memberPost = await member.post('/portal/settings/calling-window', {
      csrf_token: PortalClient.csrfOf(memberPage),
      env: 'test',
      window: 'legal',
    });
    expect([memberPost.status, shownError(memberPost)]).toEqual([403, 'forbidden']);
    const forged = await owner.client.post('/portal/settings/calling-window', { env: 'test', window: 'legal' });
    expect(forged.status).toBe(403);
    expect((await windowOf(owner.workspaceId, 'test')).start).toBe('09:30');

    const legal = await save(owner.client, { window: 'legal' });
    expect(legal.status).toBe(200);
    expect(await windowOf(owner.workspaceId, 'test')).toBeNull();
    const event = await h
      .db('compliance_events')
      .where({ workspace_id: owner.workspaceId, event_type: 'settings_changed' })
      .orderBy('created_at', 'desc')
      .first();
    expect(event.metadata).toMatchObject({ via: 'portal', user_id: owner.userId, changed: { calling_window: { to: null } } });
  });

  it('a test call outside the calling hours is refused with outside_calling_hours, nothing placed', async () => {
    const owner = await signUpOperator(h, 'hours-call');
    const { lineId } = await createLineInPortal(owner.client, {
      name: 'Hours',
      mode: 'hosted',
      system_prompt: 'You confirm appointments.',
    });
    // 00:30 in Los Angeles: California's rule on automatic dialing-announcing devices opens at 9:00 (16:00 UTC).
    h.clock.callingHoursAt(new Date('2026-06-03T07:30:00Z'));
    const page = await owner.client.get(`/portal/lines/${lineId}?env=test`);
    const refused = await owner.client.post(`/portal/lines/${lineId}/calls`, {
      csrf_token: PortalClient.csrfOf(page),
      env: 'test',
      to_number: '+14155552682',
      idempotency_key: /name="idempotency_key" value="([^"]+)"/.exec(page.text)![1],
    });
    expect([refused.status, shownError(refused)]).toEqual([403, 'outside_calling_hours']);
    expect(refused.text).toContain('<code>next_open_at</code> 2026-06-03T16:00:00.000Z');
    expect(await h.db('calls').where({ line_id: lineId })).toHaveLength(0);
  });
});
