import crypto from 'node:crypto';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { completedCallRow } from '../support/callRows';
import { remoteNumber } from '../support/fixtures';
import { createLineInPortal, PortalClient, signInMember, signUpOperator, type PortalResponse } from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * Issue 32, item 4 in the portal (docs/decisions/recordings.md "Legal holds in the portal"): owners and admins place a
 * legal hold on a call or a number and release it on the settings page, through the use cases `/api/v1/legal-holds`
 * calls (the API lists them), each audited with the portal user; a call's page says whether it is held. Members see no
 * hold and cannot place one; another workspace's call is as unknown as one that exists nowhere.
 */
describe('portal: legal holds', () => {
  const { h } = useSuite({ portal: true, worker: true });
  const shownError = (page: PortalResponse) => /<strong class="code">([^<]+)<\/strong>/.exec(page.text)?.[1];
  const place = (client: PortalClient, fields: Record<string, string>) =>
    client.submit('/portal/settings?env=test', '/portal/settings/legal-holds', { env: 'test', ...fields });

  /** A workspace's owner (signed up in the portal) with a completed call of theirs and an API key of theirs. */
  async function ownerWithCall(tag: string) {
    const owner = await signUpOperator(h, tag);
    const { lineId } = await createLineInPortal(owner.client, { name: 'Held desk', mode: 'hosted', system_prompt: 'You take messages.' });
    const call = completedCallRow({ workspaceId: owner.workspaceId, lineId }, { to_number: remoteNumber() });
    await h.db('calls').insert(call);
    const user = (await h.db('users').where({ id: owner.userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'holds' })).plaintext;
    return { ...owner, callId: call.id, calleeNumber: call.to_number as string, key };
  }
  const activeHolds = async (key: string) =>
    (await h.request('GET', '/api/v1/legal-holds?active=true&limit=100', { key })).body.legal_holds as Array<Record<string, unknown>>;

  it('an owner places a hold on a call and on a number and releases one, as the API sees and audits them; the call’s page says so', async () => {
    const owner = await ownerWithCall('holds');
    const before = await owner.client.get(`/portal/calls/${owner.callId}?env=test`);
    expect(before.text).toContain('id="legal-hold"');
    expect(before.text).toContain('Not on legal hold');
    // The call's page links to the form with the call filled in.
    const link = /id="place-legal-hold" href="([^"]+)"/.exec(before.text)![1].replace(/&amp;/g, '&');
    expect(await owner.client.get(link)).toMatchObject({ text: expect.stringContaining(`name="call_id" value="${owner.callId}"`) });

    const onCall = await place(owner.client, { call_id: owner.callId, reason: 'Case 7 — keep everything' });
    expect(onCall.status).toBe(201);
    expect(onCall.text).toContain(`Legal hold placed on call ${owner.callId}.`);
    const onNumber = await place(owner.client, { phone_number: owner.calleeNumber, reason: 'Subpoena 12' });
    expect(onNumber.status).toBe(201);

    // The API lists both, as placed.
    const holds = await activeHolds(owner.key);
    const byCall = holds.find((hold) => hold.call_id === owner.callId)!;
    const byNumber = holds.find((hold) => hold.phone_number === owner.calleeNumber)!;
    expect(byCall).toMatchObject({ reason: 'Case 7 — keep everything', active: true });
    expect(byNumber).toMatchObject({ call_id: null, reason: 'Subpoena 12', active: true });
    // Audited as the API's holds are, naming the portal user (no key acted).
    const placed = await h.db('compliance_events').where({ workspace_id: owner.workspaceId, event_type: 'legal_hold_placed' });
    expect(placed.map((event) => event.metadata.legal_hold_id).sort()).toEqual([byCall.id, byNumber.id].sort());
    for (const event of placed) {
      expect(event.actor_key_id).toBeNull();
      expect(event.metadata).toMatchObject({ via: 'portal', user_id: owner.userId });
    }

    // The call's page shows both holds: on the call itself, and through its callee's number.
    const held = await owner.client.get(`/portal/calls/${owner.callId}?env=test`);
    expect(held.text).toContain('data-held');
    expect(held.text).toContain(`data-legal-hold-id="${byCall.id}"`);
    expect(held.text).toContain(`data-legal-hold-id="${byNumber.id}"`);
    expect(held.text).toContain('Through the number');

    // Release: a confirmation first (nothing released by the click alone), then the confirmed post.
    const settings = await owner.client.get('/portal/settings?env=test');
    const releasePath = `/portal/settings/legal-holds/${byCall.id}/release`;
    expect(settings.text).toContain(`href="${releasePath}?env=test"`);
    const confirmation = await owner.client.get(`${releasePath}?env=test`);
    expect(confirmation.status).toBe(200);
    expect(confirmation.text).toContain('id="confirmation"');
    const unconfirmed = await owner.client.post(releasePath, { csrf_token: PortalClient.csrfOf(confirmation), env: 'test' });
    expect(unconfirmed.status).toBe(200);
    expect((await activeHolds(owner.key)).map((hold) => hold.id)).toContain(byCall.id);
    const released = await owner.client.post(releasePath, { csrf_token: PortalClient.csrfOf(confirmation), env: 'test', confirm: 'yes' });
    expect(released.status).toBe(303);
    const listed = (await h.request('GET', '/api/v1/legal-holds?limit=100', { key: owner.key })).body.legal_holds;
    expect(listed.find((hold: { id: string }) => hold.id === byCall.id)).toMatchObject({ active: false, released_at: expect.any(String) });
    const releasedEvent = await h
      .db('compliance_events')
      .where({ workspace_id: owner.workspaceId, event_type: 'legal_hold_released' })
      .first();
    expect(releasedEvent).toMatchObject({ call_id: owner.callId, actor_key_id: null });
    expect(releasedEvent.metadata).toMatchObject({ legal_hold_id: byCall.id, via: 'portal', user_id: owner.userId });
    // Released again (a stale confirmation): nothing to do, said as a conflict; no second event.
    const again = await owner.client.post(releasePath, { csrf_token: PortalClient.csrfOf(confirmation), env: 'test', confirm: 'yes' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('This legal hold is already released.');
    expect(await h.db('compliance_events').where({ workspace_id: owner.workspaceId, event_type: 'legal_hold_released' })).toHaveLength(1);
    // Still held through the number.
    const stillHeld = await owner.client.get(`/portal/calls/${owner.callId}?env=test`);
    expect(stillHeld.text).not.toContain(`data-legal-hold-id="${byCall.id}"`);
    expect(stillHeld.text).toContain(`data-legal-hold-id="${byNumber.id}"`);

    // The portal's action log names each, the stale release as refused.
    const actions = await h
      .db('portal_actions')
      .where({ workspace_id: owner.workspaceId })
      .whereLike('action', 'recordings.%')
      .orderBy('created_at');
    expect(actions.map((row) => [row.action, row.outcome, row.refusal_code])).toEqual([
      ['recordings.legal_hold_placed', 'succeeded', null],
      ['recordings.legal_hold_placed', 'succeeded', null],
      ['recordings.legal_hold_released', 'succeeded', null],
      ['recordings.legal_hold_released', 'refused', 'legal_hold_released'],
    ]);
    expect(actions[0].details).toMatchObject({ call_id: owner.callId, reason: 'Case 7 — keep everything' });
  });

  it('refuses bad input naming the field, another workspace’s call as an unknown one, and members', async () => {
    const owner = await ownerWithCall('holds-refused');
    const other = await ownerWithCall('holds-other');
    const cases: Array<[Record<string, string>, string]> = [
      [{ reason: 'neither' }, 'call_id'],
      [{ call_id: owner.callId, phone_number: remoteNumber(), reason: 'both' }, 'phone_number'],
      [{ phone_number: 'not a number', reason: 'bad' }, 'phone_number'],
      [{ call_id: 'not-an-id', reason: 'bad' }, 'call_id'],
      [{ call_id: owner.callId, reason: '  ' }, 'reason'],
    ];
    for (const [fields, field] of cases) {
      const refused = await place(owner.client, fields);
      expect([refused.status, shownError(refused)]).toEqual([422, 'validation_error']);
      expect(refused.text).toContain(`<code>${field}</code>`);
    }
    // What was typed stays in the form.
    expect((await place(owner.client, { phone_number: 'not a number', reason: 'Typed reason' })).text).toContain(
      '>Typed reason</textarea>',
    );

    // Another workspace's call answers as an id that exists nowhere: the same status, code and message.
    const foreign = await place(owner.client, { call_id: other.callId, reason: 'x' });
    const unknown = await place(owner.client, { call_id: crypto.randomUUID(), reason: 'x' });
    expect([foreign.status, shownError(foreign)]).toEqual([404, 'call_not_found']);
    expect([unknown.status, shownError(unknown)]).toEqual([404, 'call_not_found']);
    const messageOf = (page: PortalResponse) => /<div class="error" role="alert">\s*<p>\s*([^<]+)</.exec(page.text)?.[1];
    expect(messageOf(foreign)).toBe(messageOf(unknown));
    // Nor can its hold be released from here, nor its call's page read.
    const otherHold = await place(other.client, { call_id: other.callId, reason: 'theirs' });
    expect(otherHold.status).toBe(201);
    const otherHoldId = (await activeHolds(other.key))[0].id as string;
    expect((await owner.client.get(`/portal/settings/legal-holds/${otherHoldId}/release?env=test`)).status).toBe(404);
    expect((await owner.client.get(`/portal/settings/legal-holds/${crypto.randomUUID()}/release?env=test`)).status).toBe(404);
    expect(await activeHolds(owner.key)).toEqual([]);

    // A member sees no hold and no form, and is refused (403) placing or releasing one.
    const member = await signInMember(h.apiUrl, h.db, owner.workspaceId);
    await place(owner.client, { phone_number: owner.calleeNumber, reason: 'Owner’s hold' });
    const memberSettings = await member.get('/portal/settings?env=test');
    expect(memberSettings.status).toBe(200);
    expect(memberSettings.text).not.toContain('id="legal-hold-form"');
    expect(memberSettings.text).not.toContain('Owner’s hold');
    const memberCall = await member.get(`/portal/calls/${owner.callId}?env=test`);
    expect(memberCall.status).toBe(200);
    expect(memberCall.text).not.toContain('id="legal-hold"');
    const byMember = await member.post('/portal/settings/legal-holds', {
      csrf_token: PortalClient.csrfOf(memberSettings),
      env: 'test',
      call_id: owner.callId,
      reason: 'member',
    });
    expect([byMember.status, shownError(byMember)]).toEqual([403, 'forbidden']);
    const ownerHoldId = (await activeHolds(owner.key))[0].id as string;
    const memberRelease = await member.post(`/portal/settings/legal-holds/${ownerHoldId}/release`, {
      csrf_token: PortalClient.csrfOf(memberSettings),
      env: 'test',
      confirm: 'yes',
    });
    expect([memberRelease.status, shownError(memberRelease)]).toEqual([403, 'forbidden']);
    // A post without the session's CSRF token changes nothing.
    const forged = await owner.client.post('/portal/settings/legal-holds', { env: 'test', call_id: owner.callId, reason: 'forged' });
    expect(forged.status).toBe(403);
    expect((await activeHolds(owner.key)).map((hold) => hold.reason)).toEqual(['Owner’s hold']);
  });
});
