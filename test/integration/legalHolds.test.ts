import crypto from 'node:crypto';
import { runCommand } from '../../src/main/cli';
import { ensureSchedules, RECORDINGS_RETENTION_SCHEDULE_ID } from '../../src/main/schedules';
import { completedCallRow } from '../support/callRows';
import { remoteNumber } from '../support/fixtures';
import { createActiveLine, createTenant, type Tenant } from '../support/harness';
import { useSuite } from '../support/suite';
import { signInMember, signUpOperator } from '../support/portalClient';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { webhookLine } from '../support/harness';

/** The recordings settings' redaction as a workspace has it until it sets one (issue 32 item 5): nothing redacted. */
const NO_REDACTION = { kinds: [], custom: [], webhooks: false };

/**
 * Issue 32, item 4 through the API: `recordings.retention_days` in the settings, and legal holds on a call or a phone
 * number (`/api/v1/legal-holds`): placed, listed, released (kept for the audit), each a compliance event; owner or
 * admin keys only; another tenant's call or hold is 404 as an unknown one; bad input is 422 naming the field.
 */
describe('recordings retention setting and legal holds', () => {
  const { h, tenant } = useSuite({ worker: true, portal: true, tenant: 'each' });

  /** A completed call of the tenant's (a row as the call workflow leaves it: what a hold names). */
  async function callOf(owner: Tenant): Promise<string> {
    const line = await createActiveLine(h, owner.keys.test, webhookLine({ name: 'Held line' }));
    const row = completedCallRow({ workspaceId: owner.workspaceId, lineId: line.id });
    await h.db('calls').insert(row);
    return row.id;
  }

  it('sets and clears the retention; refuses less than a day or a fraction, naming the field', async () => {
    const set = await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { recordings: { retention_days: 30 } } });
    expect(set.status).toBe(200);
    expect(set.body.recordings).toEqual({ store_events: false, retention_days: 30, delete_at_carrier: false, redaction: NO_REDACTION });
    for (const bad of [0, -1, 1.5, '30']) {
      const refused = await h.request('PATCH', '/api/v1/settings', {
        key: tenant.keys.test,
        body: { recordings: { retention_days: bad } },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('validation_error');
      expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toContain('recordings.retention_days');
    }
    expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body.recordings.retention_days).toBe(30);
    const cleared = await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { recordings: { retention_days: null } } });
    expect(cleared.body.recordings).toEqual({
      store_events: false,
      retention_days: null,
      delete_at_carrier: false,
      redaction: NO_REDACTION,
    });
  });

  it('places, lists and releases holds on a call and on a number, audited; other tenants and members are refused', async () => {
    const callId = await callOf(tenant);
    const onCall = await h.request('POST', '/api/v1/legal-holds', { key: tenant.keys.test, body: { call_id: callId, reason: 'Case 1' } });
    expect(onCall.status).toBe(201);
    expect(onCall.body.legal_hold).toMatchObject({
      call_id: callId,
      phone_number: null,
      reason: 'Case 1',
      active: true,
      released_at: null,
    });
    const heldNumber = remoteNumber();
    const onNumber = await h.request('POST', '/api/v1/legal-holds', {
      key: tenant.keys.test,
      body: { phone_number: heldNumber, reason: 'Subpoena' },
    });
    expect(onNumber.status).toBe(201);
    expect(onNumber.body.legal_hold).toMatchObject({ call_id: null, phone_number: heldNumber, active: true });

    // Listed newest first, paginated; the live environment has its own.
    const listed = await h.request('GET', '/api/v1/legal-holds?limit=1', { key: tenant.keys.test });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBeGreaterThanOrEqual(2);
    expect(listed.body.legal_holds).toHaveLength(1);
    const all = await h.request('GET', '/api/v1/legal-holds?limit=100', { key: tenant.keys.test });
    const ids = all.body.legal_holds.map((hold: { id: string }) => hold.id);
    expect(ids).toEqual(expect.arrayContaining([onCall.body.legal_hold.id, onNumber.body.legal_hold.id]));
    const live = await h.request('GET', '/api/v1/legal-holds', { key: tenant.keys.live });
    expect(live.body.legal_holds.map((hold: { id: string }) => hold.id)).not.toContain(onCall.body.legal_hold.id);

    // Released: kept, with its release time; releasing again answers it unchanged.
    const released = await h.request('DELETE', `/api/v1/legal-holds/${onCall.body.legal_hold.id}`, { key: tenant.keys.test });
    expect(released.status).toBe(200);
    expect(released.body.legal_hold.active).toBe(false);
    expect(released.body.legal_hold.released_at).toEqual(expect.any(String));
    const again = await h.request('DELETE', `/api/v1/legal-holds/${onCall.body.legal_hold.id}`, { key: tenant.keys.test });
    expect(again.body.legal_hold).toEqual(released.body.legal_hold);
    const active = await h.request('GET', '/api/v1/legal-holds?active=true&limit=100', { key: tenant.keys.test });
    expect(active.body.legal_holds.map((hold: { id: string }) => hold.id)).not.toContain(onCall.body.legal_hold.id);
    const events = await h
      .db('compliance_events')
      .where({ workspace_id: tenant.workspaceId, environment: 'test' })
      .whereIn('event_type', ['legal_hold_placed', 'legal_hold_released'])
      .orderBy('created_at');
    const ofHold = events.filter((event) => event.metadata?.legal_hold_id === onCall.body.legal_hold.id);
    expect(ofHold.map((event) => event.event_type)).toEqual(['legal_hold_placed', 'legal_hold_released']);
    expect(ofHold[0]).toMatchObject({ call_id: callId, metadata: { reason: 'Case 1' } });
    expect(ofHold[0].actor_key_id).toEqual(expect.any(String));

    // Another tenant's call and hold are unknown ids to this tenant, and the reverse.
    const other = await createTenant(h.db);
    const otherCall = await callOf(other);
    const foreignCall = await h.request('POST', '/api/v1/legal-holds', {
      key: tenant.keys.test,
      body: { call_id: otherCall, reason: 'x' },
    });
    expect(foreignCall.status).toBe(404);
    expect(foreignCall.body.error.code).toBe('call_not_found');
    const foreignRelease = await h.request('DELETE', `/api/v1/legal-holds/${onNumber.body.legal_hold.id}`, { key: other.keys.test });
    expect(foreignRelease.status).toBe(404);
    expect(foreignRelease.body.error.code).toBe('legal_hold_not_found');
    const unknown = await h.request('DELETE', `/api/v1/legal-holds/${crypto.randomUUID()}`, { key: tenant.keys.test });
    expect(unknown.body.error.code).toBe('legal_hold_not_found');
    expect((await h.request('GET', '/api/v1/legal-holds', { key: other.keys.test })).body.total).toBe(0);
    // The live key's environment does not see the test environment's call either.
    expect((await h.request('POST', '/api/v1/legal-holds', { key: tenant.keys.live, body: { call_id: callId, reason: 'x' } })).status).toBe(
      404,
    );

    // A member's key may not place, list or release holds.
    const member = await runCommand(h.db, ['user', 'add'], {
      workspace: tenant.workspaceId,
      email: `m+${Date.now()}@example.test`,
      role: 'member',
    });
    const memberKey = String(
      (await runCommand(h.db, ['key', 'create'], { workspace: tenant.workspaceId, user: String(member.user_id), env: 'test' })).key,
    );
    const byMember = await h.request('POST', '/api/v1/legal-holds', {
      key: memberKey,
      body: { phone_number: remoteNumber(), reason: 'x' },
    });
    expect(byMember.status).toBe(403);
    expect((await h.request('GET', '/api/v1/legal-holds', { key: memberKey })).status).toBe(403);
    expect((await h.request('DELETE', `/api/v1/legal-holds/${onNumber.body.legal_hold.id}`, { key: memberKey })).status).toBe(403);
  });

  it('refuses a hold naming neither or both subjects, a bad number or no reason, naming the field', async () => {
    const callId = await callOf(tenant);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ reason: 'neither' }, 'call_id'],
      [{ call_id: callId, phone_number: remoteNumber(), reason: 'both' }, 'phone_number'],
      [{ phone_number: 'not a number', reason: 'bad' }, 'phone_number'],
      [{ call_id: callId }, 'reason'],
      [{ call_id: callId, reason: '' }, 'reason'],
      [{ call_id: 'nope', reason: 'bad id' }, 'call_id'],
    ];
    for (const [body, field] of cases) {
      const res = await h.request('POST', '/api/v1/legal-holds', { key: tenant.keys.test, body });
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 422, code: 'validation_error' });
      expect(res.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    }
    expect((await h.request('GET', '/api/v1/legal-holds?limit=0', { key: tenant.keys.test })).status).toBe(422);
  });

  it('runs the retention daily at 03:00 UTC from a Temporal Schedule every worker ensures exists', async () => {
    await ensureSchedules(h.temporal, h.config.taskQueue);
    await ensureSchedules(h.temporal, h.config.taskQueue);
    const schedule = await h.temporal.schedule.getHandle(RECORDINGS_RETENTION_SCHEDULE_ID).describe();
    expect(schedule.spec.calendars).toMatchObject([
      { dayOfMonth: [{ start: 1, end: 31, step: 1 }], hour: [{ start: 3, end: 3, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] },
    ]);
    expect(schedule.spec.timezone).toBe('UTC');
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'recordingsRetentionWorkflow' });
    expect(schedule.policies).toMatchObject({ overlap: 'SKIP', catchupWindow: 24 * 60 * 60 * 1000 });
  });

  it('shows the retention and the active holds read-only on the portal’s settings page; holds to owners and admins only', async () => {
    const owner = await signUpOperator(h, 'retention');
    const user = (await h.db('users').where({ id: owner.userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'k' })).plaintext;
    const before = await owner.client.get('/portal/settings?env=test');
    expect(before.text).toContain('<strong id="recordings-retention">kept until deleted</strong>');
    expect(before.text).toContain('<p id="legal-holds">No legal hold is in force.</p>');

    expect((await h.request('PATCH', '/api/v1/settings', { key, body: { recordings: { retention_days: 90 } } })).status).toBe(200);
    const number = remoteNumber();
    const hold = await h.request('POST', '/api/v1/legal-holds', { key, body: { phone_number: number, reason: 'Case <42>' } });
    expect(hold.status).toBe(201);
    const after = await owner.client.get('/portal/settings?env=test');
    expect(after.text).toContain('<strong id="recordings-retention">deleted 90 days after they were stored, unless on legal hold</strong>');
    expect(after.text).toContain(number);
    expect(after.text).toContain('Case &lt;42&gt;');
    // The live environment has neither.
    expect((await owner.client.get('/portal/settings?env=live')).text).toContain('kept until deleted');

    const member = await signInMember(h.apiUrl, h.db, owner.workspaceId);
    const memberPage = await member.get('/portal/settings?env=test');
    expect(memberPage.text).toContain('deleted 90 days after');
    expect(memberPage.text).not.toContain(number);
    await h.request('DELETE', `/api/v1/legal-holds/${hold.body.legal_hold.id}`, { key });
    expect((await owner.client.get('/portal/settings?env=test')).text).toContain('No legal hold is in force.');
  });
});
