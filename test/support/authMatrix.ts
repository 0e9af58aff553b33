import crypto from 'node:crypto';
import type { RouteDef } from '../../api/routeTable';
import type { Db } from '../../src/platform/db/knex';
import { tierAllows, type Tier } from '../../src/domain/keys/tiers';
import { dormantCampaign, remoteNumber as phone, type EnvFixtures } from './fixtures';
import { webhookLine } from './harness';

/**
 * What the auth matrix (test/integration/authMatrix.test.ts) needs besides the route table: a
 * request per operation built from a tenant's fixtures, the rules that say what a credential
 * gets on a route, and a snapshot of everything a tenant owns.
 */

/** The ids and numbers a request may name, as one view over a tenant's fixtures. */
export interface Resources {
  readonly lineId: string;
  readonly liveCallId: string;
  readonly endedCallId: string;
  /** A remote number with an active explicit_outbound consent and a conversation on `lineId`. */
  readonly phoneNumber: string;
  readonly linePhoneNumber: string;
  readonly agentKeyId: string;
  readonly apiTokenId: string;
  /** A campaign on `lineId` that dials nothing while the tests run. */
  readonly campaignId: string;
  /** An active legal hold (releasing it again answers it as it is). */
  readonly legalHoldId: string;
  /** An uploaded contact list (a list names no line: a key held to lines reads its tenant's lists). */
  readonly contactListId: string;
  /** A number no fixture uses. */
  newPhone(): string;
  /**
   * Targets a request uses up (released, revoked, occupied by a new call, consent revoked): made
   * afresh for the request that succeeds (the owner's own), the shared fixture for every other cell,
   * which must be refused before it acts.
   */
  disposableLine(): Promise<string>;
  disposableAgentKey(): Promise<string>;
  disposableApiToken(): Promise<string>;
  consentedPhone(): Promise<string>;
  disposableCampaign(): Promise<string>;
  disposableContactList(): Promise<string>;
}

export interface RequestSpec {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** A body sent as written (an upload's CSV), instead of `body` as JSON. */
  rawBody?: string;
  headers?: Record<string, string>;
}

type Fixture = (r: Resources) => RequestSpec | Promise<RequestSpec>;

const idempotent = () => ({ 'idempotency-key': crypto.randomUUID() });

/**
 * A valid request per operation, from the acting tenant's resources. Every operation with path
 * parameters, a required body or required query parameters must be here (the matrix fails
 * naming the one that is not); others may be, to name a line in a filter.
 */
export const OPERATION_FIXTURES: Record<string, Fixture> = {
  createLine: () => ({ body: webhookLine({ name: 'Matrix line' }) }),
  getLine: (r) => ({ params: { id: r.lineId } }),
  updateLine: (r) => ({ params: { id: r.lineId }, body: { display_name: 'Matrix' } }),
  releaseLine: async (r) => ({ params: { id: await r.disposableLine() } }),
  rotateLineWebhookSecret: (r) => ({ params: { id: r.lineId } }),
  // No call comes: each admitted cell waits its one second and answers `timed_out`.
  waitForInboundCall: (r) => ({ params: { id: r.lineId }, body: { timeout_seconds: 1 } }),
  mintAgentKey: (r) => ({ body: { name: 'matrix agent', line_id: r.lineId }, headers: idempotent() }),
  getAgentKey: (r) => ({ params: { id: r.agentKeyId } }),
  updateAgentKey: (r) => ({ params: { id: r.agentKeyId }, body: { name: 'matrix renamed' } }),
  revokeAgentKey: async (r) => ({ params: { id: await r.disposableAgentKey() } }),
  rotateAgentKey: async (r) => ({ params: { id: await r.disposableAgentKey() }, headers: idempotent() }),
  mintApiToken: (r) => ({ body: { name: 'matrix token', grant: { scopes: ['read'], resources: { numbers: [r.lineId] } } } }),
  revokeApiToken: async (r) => ({ params: { id: await r.disposableApiToken() } }),
  createAuthKey: (r) => ({ body: { name: 'matrix key', line_id: r.lineId } }),
  sendTestWebhook: (r) => ({ body: { line_id: r.lineId } }),
  listWebhookDeliveries: (r) => ({ query: { line_id: r.lineId } }),
  webhookStats: (r) => ({ query: { line_id: r.lineId } }),
  updateSettings: () => ({ body: { auto_recharge_enabled: false } }),
  grantConsent: (r) => ({ body: { line_id: r.lineId, phone_number: r.newPhone(), consent_type: 'explicit_outbound' } }),
  checkConsent: (r) => ({ query: { phone_number: r.phoneNumber, line_id: r.lineId } }),
  revokeConsent: async (r) => ({ query: { phone_number: await r.consentedPhone(), line_id: r.lineId } }),
  createDisclosure: () => ({ body: { message: 'You are talking to an AI agent.' } }),
  createLegalHold: (r) => ({ body: { phone_number: r.newPhone(), reason: 'The auth matrix' } }),
  // Releasing is idempotent: the owner's cell releases the fixture's hold (again), every other cell is refused first.
  releaseLegalHold: (r) => ({ params: { id: r.legalHoldId } }),
  complianceAudit: (r) => ({ query: { line_id: r.lineId } }),
  complianceEvents: (r) => ({ query: { line_id: r.lineId } }),
  agentAuditFeed: (r) => ({ query: { api_key_id: r.agentKeyId } }),
  createCampaign: async (r) => ({ body: dormantCampaign(await r.disposableLine()) }),
  getCampaign: (r) => ({ params: { id: r.campaignId } }),
  listCampaignResults: (r) => ({ params: { id: r.campaignId } }),
  exportCampaignResults: (r) => ({ params: { id: r.campaignId } }),
  // Cancelling ends a campaign for good: the owner's own request gets a fresh one; every other cell must be refused first.
  pauseCampaign: async (r) => ({ params: { id: await r.disposableCampaign() } }),
  resumeCampaign: async (r) => ({ params: { id: await r.disposableCampaign() } }),
  cancelCampaign: async (r) => ({ params: { id: await r.disposableCampaign() } }),
  getCampaignContactList: (r) => ({ params: { id: r.contactListId } }),
  // Deleting is for good: the owner's own request gets a fresh list; every other cell must be refused first.
  deleteCampaignContactList: async (r) => ({ params: { id: await r.disposableContactList() } }),
  uploadCampaignContactList: (r) => ({
    rawBody: `phone_number,first_name\r\n${r.newPhone()},Ada\r\n`,
    headers: { 'content-type': 'text/csv' },
  }),
  placeCall: async (r) => ({ body: { line_id: await r.disposableLine(), to_number: r.newPhone() } }),
  listCalls: (r) => ({ query: { line_id: r.lineId } }),
  getCall: (r) => ({ params: { id: r.endedCallId } }),
  getCallRecording: (r) => ({ params: { id: r.endedCallId } }),
  hangUpCall: (r) => ({ params: { id: r.endedCallId } }),
  placeConversationCall: async (r) => ({ body: { line_id: await r.disposableLine(), to_number: r.newPhone(), topic: 'the auth matrix' } }),
  speakOnCall: (r) => ({ params: { id: r.liveCallId }, body: { text: 'Hello from the matrix.' } }),
  waitOnCall: (r) => ({ params: { id: r.liveCallId }, body: { timeout_seconds: 1 } }),
  pressOnCall: (r) => ({ params: { id: r.liveCallId }, body: { digits: '1' } }),
  // A destination that never answers: the live call stays with the agent for the cells after it.
  transferCall: (r) => ({ params: { id: r.liveCallId }, body: { to_number: '+14155550123' } }),
  sendMessage: (r) => ({ body: { line_id: r.lineId, to: r.phoneNumber, text: 'Matrix' } }),
  sendLineSms: (r) => ({ params: { id: r.lineId }, body: { to_number: r.phoneNumber, message: 'Matrix' } }),
  listConversations: (r) => ({ query: { line_id: r.lineId } }),
  getConversation: (r) => ({ params: { lineId: r.lineId, phoneNumber: r.phoneNumber } }),
  // Forged carrier callbacks: an inbound call and a STOP to the tenant's own number.
  carrierEvent: (r) => ({
    body: {
      type: 'call.incoming',
      carrier_call_id: `CA${crypto.randomBytes(8).toString('hex')}`,
      from: phone(),
      to: r.linePhoneNumber,
      at: Date.now(),
    },
  }),
  carrierMessageEvent: (r) => ({
    body: {
      type: 'sms.received',
      carrier_message_id: `SM${crypto.randomBytes(8).toString('hex')}`,
      from: r.phoneNumber,
      to: r.linePhoneNumber,
      text: 'STOP',
      at: Date.now(),
    },
  }),
  // A forged Telnyx webhook: a STOP to the tenant's own number, in Telnyx's envelope.
  telnyxEvent: (r) => ({
    body: {
      data: {
        record_type: 'event',
        event_type: 'message.received',
        id: crypto.randomUUID(),
        occurred_at: new Date().toISOString(),
        payload: {
          id: crypto.randomUUID(),
          from: { phone_number: r.phoneNumber },
          to: [{ phone_number: r.linePhoneNumber }],
          text: 'STOP',
        },
      },
    },
  }),
  // Unsigned: no tenant key stands in for Stripe-Signature.
  stripeWebhook: () => ({
    body: {
      id: `evt_${crypto.randomBytes(12).toString('hex')}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      livemode: false,
      data: { object: { id: 'pi_1', object: 'payment_intent', amount: 2000, status: 'succeeded', metadata: {} } },
    },
  }),
};

/** Whether the matrix cannot build a valid request for this route without a fixture. */
export function needsFixture(route: RouteDef): boolean {
  return (
    /\{/.test(route.path) ||
    route.doc.requestBody?.required === true ||
    route.upload !== undefined ||
    (route.doc.parameters ?? []).some((p) => p.in === 'query' && p.required)
  );
}

/** How a cell sees a tenant's resources: which fixtures, and whether disposables are made afresh. */
export type ResourceMode =
  | { kind: 'fixtures'; fixtures: EnvFixtures }
  | { kind: 'fresh'; fixtures: EnvFixtures; make: FreshMaker }
  | { kind: 'unknown'; fixtures: EnvFixtures };

export interface FreshMaker {
  line(): Promise<string>;
  agentKey(): Promise<string>;
  apiToken(): Promise<string>;
  consent(lineId: string): Promise<string>;
  campaign(lineId: string): Promise<string>;
  contactList(): Promise<string>;
}

/** Builds the resources view, and records whether the request names an id, and one that belongs to a line. */
export function resourcesFor(mode: ResourceMode): { resources: Resources; namesLine: () => boolean; namesId: () => boolean } {
  const f = mode.fixtures;
  let namesLine = false;
  let namesId = false;
  const random = mode.kind === 'unknown';
  const ids = {
    lineId: random ? crypto.randomUUID() : f.lineId,
    liveCallId: random ? crypto.randomUUID() : f.liveCallId,
    endedCallId: random ? crypto.randomUUID() : f.endedCallId,
    agentKeyId: random ? crypto.randomUUID() : f.agentKeyId,
    apiTokenId: random ? crypto.randomUUID() : f.apiTokenId,
    campaignId: random ? crypto.randomUUID() : f.campaignId,
    legalHoldId: random ? crypto.randomUUID() : f.legalHoldId,
    contactListId: random ? crypto.randomUUID() : f.contactListId,
  };
  const onLine = <T>(value: T) => {
    namesLine = true;
    namesId = true;
    return value;
  };
  const anId = <T>(value: T) => {
    namesId = true;
    return value;
  };
  const resources: Resources = {
    get lineId() {
      return onLine(ids.lineId);
    },
    get liveCallId() {
      return onLine(ids.liveCallId);
    },
    get endedCallId() {
      return onLine(ids.endedCallId);
    },
    phoneNumber: f.phoneNumber,
    linePhoneNumber: f.linePhoneNumber,
    get agentKeyId() {
      return anId(ids.agentKeyId);
    },
    get apiTokenId() {
      return anId(ids.apiTokenId);
    },
    // A campaign is read through its lines (a line-bound key sees those whose every line is its own).
    get campaignId() {
      return onLine(ids.campaignId);
    },
    get legalHoldId() {
      return anId(ids.legalHoldId);
    },
    get contactListId() {
      return anId(ids.contactListId);
    },
    newPhone: phone,
    disposableLine: async () => onLine(mode.kind === 'fresh' ? await mode.make.line() : ids.lineId),
    disposableAgentKey: async () => anId(mode.kind === 'fresh' ? await mode.make.agentKey() : ids.agentKeyId),
    disposableApiToken: async () => anId(mode.kind === 'fresh' ? await mode.make.apiToken() : ids.apiTokenId),
    consentedPhone: async () => (mode.kind === 'fresh' ? mode.make.consent(f.lineId) : f.phoneNumber),
    disposableCampaign: async () => onLine(mode.kind === 'fresh' ? await mode.make.campaign(f.lineId) : ids.campaignId),
    disposableContactList: async () => anId(mode.kind === 'fresh' ? await mode.make.contactList() : ids.contactListId),
  };
  return { resources, namesLine: () => namesLine, namesId: () => namesId };
}

/** The concrete request of a route (or one of its alias paths) from a spec. */
export function toRequest(
  route: RouteDef,
  path: string,
  spec: RequestSpec,
): { method: string; path: string; body?: unknown; rawBody?: string; headers: Record<string, string> } {
  const filled = path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = spec.params?.[name];
    if (value === undefined) throw new Error(`the fixture of ${route.operationId} does not fill {${name}}`);
    return encodeURIComponent(value);
  });
  const query = spec.query ? `?${new URLSearchParams(spec.query).toString()}` : '';
  return {
    method: route.method.toUpperCase(),
    path: `${filled}${query}`,
    body: spec.body,
    ...(spec.rawBody !== undefined ? { rawBody: spec.rawBody } : {}),
    headers: spec.headers ?? {},
  };
}

/** A key as the auth rules see it. */
export interface KeyTraits {
  kind: 'standard' | 'service';
  permissions: Tier;
  scopes: readonly string[];
}

export interface Outcome {
  status: number;
  code: string;
}

/**
 * What the auth layer answers a live key of these traits on a route, from the route's `auth`
 * and the spec's rules, in the order the API checks them: kind (401 invalid_api_key), tier (403
 * agent_permission_denied), scope (403 forbidden); `undefined` when it lets the request through.
 */
export function authRefusal(auth: RouteDef['auth'], key: KeyTraits): Outcome | undefined {
  if (auth.kind === 'public') return undefined;
  // No tenant key is a carrier's (or Stripe's) credential: their callbacks want the provider's signature.
  if (auth.kind === 'carrier' || auth.kind === 'stripe') return { status: 401, code: 'unauthorized' };
  if (auth.kind === 'service') return key.kind === 'service' ? undefined : { status: 401, code: 'invalid_api_key' };
  if (key.kind === 'service') return { status: 401, code: 'invalid_api_key' };
  if (!tierAllows(key.permissions, auth.verb)) return { status: 403, code: 'agent_permission_denied' };
  if (!key.scopes.includes(auth.scope)) return { status: 403, code: 'forbidden' };
  return undefined;
}

/** The refusals the auth layer itself gives; anything else on a 403 is a handler's own policy. */
export function isAuthLayerRefusal(response: {
  status: number;
  body?: { error?: { code?: string; details?: Array<{ field?: string }> } };
}): boolean {
  const error = response.body?.error;
  if (response.status === 401) return true;
  if (response.status !== 403) return false;
  return (
    error?.code === 'agent_permission_denied' || (error?.code === 'forbidden' && (error.details ?? []).some((d) => d.field === 'scope'))
  );
}

export function successStatus(route: RouteDef): number {
  const status = Object.keys(route.doc.responses)
    .map(Number)
    .find((code) => code >= 200 && code < 300);
  if (status === undefined) throw new Error(`${route.operationId} documents no 2xx response`);
  return status;
}

/**
 * The tables with a `workspace_id`, and those with an `environment`, from the catalog (so new tables are covered).
 * Read once per database handle: no test changes the schema, and the auth matrix takes hundreds of snapshots.
 */
const catalogs = new WeakMap<Db, Promise<{ tables: string[]; withEnvironment: string[] }>>();
function tenantTables(db: Db): Promise<{ tables: string[]; withEnvironment: string[] }> {
  let catalog = catalogs.get(db);
  if (!catalog) {
    catalog = (async () => ({
      tables: await db('information_schema.columns as c')
        .join('information_schema.tables as t', function joinTables() {
          this.on('t.table_name', 'c.table_name').andOn('t.table_schema', 'c.table_schema');
        })
        .where({ 'c.table_schema': 'public', 'c.column_name': 'workspace_id', 't.table_type': 'BASE TABLE' })
        .orderBy('c.table_name')
        .pluck('c.table_name'),
      withEnvironment: await db('information_schema.columns')
        .where({ table_schema: 'public', column_name: 'environment' })
        .pluck('table_name'),
    }))();
    catalog.catch(() => catalogs.delete(db));
    catalogs.set(db, catalog);
  }
  return catalog;
}

/**
 * Everything a tenant owns, as one comparable string: every row of every table with a
 * `workspace_id` (found in the catalog, so new tables are covered), its workspace, its lines'
 * signing secrets and its keys' idempotency records. `environment` narrows it to one environment.
 */
export async function tenantSnapshot(
  db: Db,
  workspaceId: string,
  options: { environment?: 'test' | 'live'; ignoreColumns?: string[] } = {},
): Promise<string> {
  const { tables, withEnvironment } = await tenantTables(db);
  const snapshot: Record<string, unknown[]> = {};
  const scoped = (table: string) => {
    const query = db(table).where({ workspace_id: workspaceId });
    if (options.environment && withEnvironment.includes(table)) query.andWhere({ environment: options.environment });
    return query;
  };
  // The tables are read at once (the pool has room): each is its own query, and the snapshot is keyed by table.
  const rows = await Promise.all(tables.map((table) => scoped(table).select('*')));
  tables.forEach((table, i) => (snapshot[table] = rows[i]));
  const [lineIds, keyIds] = await Promise.all([scoped('lines').pluck('id'), scoped('api_keys').pluck('id')]);
  const [workspaces, secrets, idempotency] = await Promise.all([
    db('workspaces').where({ id: workspaceId }),
    db('line_webhook_secrets').whereIn('line_id', lineIds),
    options.environment ? Promise.resolve([]) : db('idempotency_keys').whereIn('principal_key_id', keyIds),
  ]);
  snapshot.workspaces = workspaces;
  snapshot.line_webhook_secrets = secrets;
  snapshot.idempotency_keys = idempotency;
  const ignore = new Set(options.ignoreColumns ?? []);
  const canonical = Object.fromEntries(
    Object.entries(snapshot).map(([table, rows]) => [
      table,
      rows
        .map((row) =>
          JSON.stringify(
            Object.fromEntries(
              Object.entries(row as object)
                .filter(([column]) => !ignore.has(column))
                .sort(([a], [b]) => a.localeCompare(b)),
            ),
          ),
        )
        .sort(),
    ]),
  );
  return JSON.stringify(canonical);
}

/** Which rows differ between two snapshots, table by table (for a failure message). */
export function snapshotDiff(before: string, after: string, maxRows = 6): string {
  const a = JSON.parse(before) as Record<string, string[]>;
  const b = JSON.parse(after) as Record<string, string[]>;
  const lines: string[] = [];
  for (const table of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const was = new Set(a[table] ?? []);
    const is = new Set(b[table] ?? []);
    const removed = [...was].filter((row) => !is.has(row));
    const added = [...is].filter((row) => !was.has(row));
    if (removed.length === 0 && added.length === 0) continue;
    lines.push(
      `  ${table}:`,
      ...removed.slice(0, maxRows).map((row) => `    - ${row.slice(0, 400)}`),
      ...added.slice(0, maxRows).map((row) => `    + ${row.slice(0, 400)}`),
    );
  }
  return lines.join('\n');
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Every UUID a text holds, lowercased. */
export function uuidsIn(text: string): Set<string> {
  return new Set((text.match(UUID) ?? []).map((id) => id.toLowerCase()));
}
