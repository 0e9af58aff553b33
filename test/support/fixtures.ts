import crypto from 'node:crypto';
import type { Db } from '../../src/platform/db/knex';
import type { Environment } from '../../src/domain/keys/format';
import { customer } from './customer';
import { eventually, webhookLine, type Harness, type Tenant } from './harness';

/**
 * A tenant's resources in one environment, made through the public API as a customer would:
 * lines, an ended and a live call, a consented number with a conversation, an agent key and a
 * scoped API token. Shared by the tests that sweep every operation (schema fuzzing, the auth
 * matrix), which fill path and body parameters from these ids.
 */
/** A remote party's number: area code 650, which the carrier simulator never gives a line, in the 555-2xxx range it answers. */
export function remoteNumber(): string {
  return `+1650555${String(2000 + crypto.randomInt(8000)).padStart(4, '0')}`;
}

export interface EnvFixtures {
  environment: Environment;
  /** The owner's standard key and service key of this environment. */
  key: string;
  serviceKey: string;
  /** An active webhook line holding every line-bound resource below. */
  lineId: string;
  linePhoneNumber: string;
  /** Further active lines of this environment (test environment only: a second live line needs a card). */
  spareLineIds: string[];
  /** A completed call, then a call in progress, on `lineId`. */
  endedCallId: string;
  liveCallId: string;
  /** A number with an active explicit_outbound consent on `lineId` and a conversation (one SMS sent). */
  phoneNumber: string;
  agentKeyId: string;
  apiTokenId: string;
  /** A campaign on `lineId` that starts in a year: it dials nothing while the tests run. */
  campaignId: string;
  /** An active legal hold on a number no call uses (issue 32): a resource to list or release. */
  legalHoldId: string;
  /** A contact list uploaded as CSV (one row), expiring in 7 days: a resource to read, list or delete. */
  contactListId: string;
}

/** Uploads a one-row contact list as CSV with `key`; answers its id. */
export async function uploadFixtureContactList(h: Harness, key: string): Promise<string> {
  const res = await h.request('POST', '/api/v1/campaigns/contact-lists', {
    key,
    rawBody: `phone_number,first_name\r\n${remoteNumber()},Ada\r\n`,
    headers: { 'content-type': 'text/csv' },
  });
  if (res.status !== 201) throw new Error(`fixture contact list upload answered ${res.status}: ${res.text}`);
  return res.body.contact_list.id as string;
}

/** A campaign that dials nothing while a test runs (its start is a year away): a resource to read, pause or cancel. */
export function dormantCampaign(lineId: string): { line_ids: string[]; contacts: Array<{ to_number: string }>; start_at: string } {
  return {
    line_ids: [lineId],
    contacts: [{ to_number: remoteNumber() }],
    start_at: new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString(),
  };
}

/** `webhookUrl`: where the lines' events go (a test receiver answering 200 keeps the tenant quiet: no retries). */
export async function makeEnvFixtures(
  h: Harness,
  tenant: Tenant,
  environment: Environment,
  options: { spareLines?: number; webhookUrl?: string } = {},
): Promise<EnvFixtures> {
  const key = environment === 'test' ? tenant.keys.test : tenant.keys.live;
  const serviceKey = environment === 'test' ? tenant.keys.serviceTest : tenant.keys.serviceLive;
  const ok = async (method: string, path: string, body?: unknown, status = [200, 201], headers?: Record<string, string>, as = key) => {
    const res = await h.request(method, path, { key: as, body, headers });
    if (!status.includes(res.status)) throw new Error(`fixture ${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body;
  };
  const as = customer(
    { h, tenant },
    {
      key: () => key,
      line: () =>
        webhookLine({
          name: `Fixture line ${crypto.randomBytes(3).toString('hex')}`,
          // Its calls have a recording to read (`GET /calls/{id}/recording`).
          recording_enabled: true,
          ...(options.webhookUrl ? { webhook_url: options.webhookUrl } : {}),
        }),
    },
  );

  const line = await as.lines.create();
  const spareLineIds: string[] = [];
  for (let i = 0; i < (options.spareLines ?? 0); i += 1) spareLineIds.push((await as.lines.create()).id);

  const phoneNumber = remoteNumber();
  const ended = (await as.calls.dial(line.id, phoneNumber)).id;
  await as.calls.untilStatus(ended, ['in_progress']);
  await ok('POST', `/api/v1/calls/${ended}/hangup`);
  await as.calls.untilStatus(ended, ['completed']);
  // Its copy into the recordings store lands now, not while a test compares the tenant's data before and after.
  await eventually(async () => (await h.db('call_objects').where({ call_id: ended, kind: 'recording' }).first()) ?? undefined, 30_000);
  const live = (await as.calls.dial(line.id, phoneNumber)).id;
  await as.calls.untilStatus(live, ['in_progress']);

  await ok('POST', '/api/v1/consent', { line_id: line.id, phone_number: phoneNumber, consent_type: 'explicit_outbound' });
  await ok('POST', '/api/v1/messages', { line_id: line.id, to: phoneNumber, text: 'Fixture message' });

  const agentKey = await ok(
    'POST',
    '/v1/keys',
    { name: 'fixture agent', agent_label: 'fixture-agent' },
    [201],
    { 'idempotency-key': crypto.randomUUID() },
    serviceKey,
  );
  const apiToken = await ok('POST', '/api-tokens', { name: 'fixture token', grant: { scopes: ['read'] } });
  const campaign = await ok('POST', '/api/v1/campaigns', dormantCampaign(line.id), [201]);
  const hold = await ok('POST', '/api/v1/legal-holds', { phone_number: remoteNumber(), reason: 'Fixture hold' }, [201]);
  const contactListId = await uploadFixtureContactList(h, key);

  return {
    environment,
    key,
    serviceKey,
    lineId: line.id,
    linePhoneNumber: line.phone_number,
    spareLineIds,
    endedCallId: ended,
    liveCallId: live,
    phoneNumber,
    agentKeyId: agentKey.key.id,
    apiTokenId: apiToken.api_token.id,
    campaignId: campaign.campaign.id,
    legalHoldId: hold.legal_hold.id,
    contactListId,
  };
}

/**
 * Empties the rate-limit windows of these workspaces (their users and keys included), for tests
 * that sweep every operation many times: otherwise most of their requests are 429. The limits
 * themselves are tested in rateLimits.test.ts.
 */
export async function clearRateLimits(db: Db, workspaceIds: string[]): Promise<void> {
  const [users, keys] = await Promise.all([
    db('users').whereIn('workspace_id', workspaceIds).pluck('id'),
    db('api_keys').whereIn('workspace_id', workspaceIds).pluck('id'),
  ]);
  const patterns = [...workspaceIds, ...users, ...keys].map((id) => `%${id}%`);
  await db('rate_limit_windows').whereRaw('bucket like any(?)', [patterns]).delete();
}
