import crypto from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { inlineRefs } from '../../api/openapi/document';
import { allRoutes } from '../../api/routes';
import type { RouteDef } from '../../api/routeTable';
import { ACTIVE_CALL_STATUSES } from '../../src/domain/calls/rules';
import { generateKey, hashKey } from '../../src/domain/keys/format';
import { mintAgentKey } from '../../src/domain/keys/agentKeys';
import { SCOPES } from '../../src/domain/keys/scopes';
import { TIERS, type Tier } from '../../src/domain/keys/tiers';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import {
  authRefusal,
  isAuthLayerRefusal,
  needsFixture,
  OPERATION_FIXTURES,
  resourcesFor,
  snapshotDiff,
  successStatus,
  tenantSnapshot,
  toRequest,
  uuidsIn,
  type KeyTraits,
  type Outcome,
  type ResourceMode,
} from '../support/authMatrix';
import {
  clearRateLimits,
  dormantCampaign,
  makeEnvFixtures,
  remoteNumber,
  uploadFixtureContactList,
  type EnvFixtures,
} from '../support/fixtures';
import { createTenant, eventually, mintKey, untilLineActive, type Tenant, type TestResponse } from '../support/harness';
import { useSuite } from '../support/suite';

/**
 * The auth matrix (issue #12, item 5): every path of the route table (aliases included) against
 * every kind of credential: none, malformed, unknown, revoked, expired, a key of the other plane,
 * a key missing the route's scope, an agent key of each permission tier, a key bound to another
 * line, another tenant's ids, and test ids with a live key and back. Each cell's expected status
 * and code is computed from the route's `auth` entry and the spec's rules; nothing is listed per
 * route. Tenant A acts; tenant B is the victim: after every route B's rows are byte-for-byte
 * unchanged and no response to A carries one of B's ids. A route whose auth kind the matrix does
 * not know fails loudly, and so does an operation the fixture map cannot build a request for.
 */
/** The Authorization header a cell sends; none when undefined. */
interface Credential {
  authorization?: string;
}

const routeCases = allRoutes(() => '').flatMap((route) =>
  [route.path, ...(route.aliases ?? [])].map((path) => [`${route.method.toUpperCase()} ${path}`, route, path] as const),
);

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

describe('auth matrix: every route × every kind of credential', () => {
  const { h, receiver } = useSuite({ worker: true, receiver: true, tenant: 'none' });
  let a: Tenant;
  let b: Tenant;
  const fx = {} as Record<'aTest' | 'aLive' | 'bTest' | 'bLive', EnvFixtures>;
  /** A's credentials, by cell (test environment unless named). */
  const keys = {} as {
    revoked: string;
    expired: string;
    revokedService: string;
    expiredService: string;
    missingScope: Record<string, string>;
    tiers: Record<Tier, { plaintext: string; traits: KeyTraits }>;
    boundToOtherLine: { plaintext: string; traits: KeyTraits };
  };
  let ownerTraits: KeyTraits;
  let bBaseline: string;
  let aLiveBaseline: string;
  /** Every id of B and its lines' numbers: none may reach A. */
  let bSecrets: Set<string>;

  const bearer = (key: string): Credential => ({ authorization: `Bearer ${key}` });
  const send = (request: ReturnType<typeof toRequest>, credential: Credential): Promise<TestResponse> =>
    h.request(request.method, request.path, {
      body: request.body,
      rawBody: request.rawBody,
      headers: { ...request.headers, ...(credential.authorization === undefined ? {} : { authorization: credential.authorization }) },
    });

  beforeAll(async () => {
    h.simulator.state.calls.wordsPerSecond = 1000;
    [a, b] = await Promise.all([createTenant(h.db), createTenant(h.db)]);
    const options = { webhookUrl: receiver.url };
    [fx.aTest, fx.aLive, fx.bTest, fx.bLive] = await Promise.all([
      makeEnvFixtures(h, a, 'test', { ...options, spareLines: 1 }),
      makeEnvFixtures(h, a, 'live', options),
      makeEnvFixtures(h, b, 'test', options),
      makeEnvFixtures(h, b, 'live', options),
    ]);
    // Only A's test environment keeps a live call (for the controls that succeed); the others go
    // quiet, so that any change to them is the matrix's doing.
    await Promise.all(
      [fx.aLive, fx.bTest, fx.bLive].map(async (f) => {
        await h.request('POST', `/api/v1/calls/${f.liveCallId}/hangup`, { key: f.key });
        await eventually(async () =>
          (await h.request('GET', `/api/v1/calls/${f.liveCallId}`, { key: f.key })).body.call.status === 'completed' ? true : undefined,
        );
      }),
    );
    // Quiet: every call ended and billed, every hold closed, every message past `queued`/`sent`,
    // every event delivered, and nothing changing for three seconds.
    const quiet = async (workspaceId: string, environments: string[], snapshot: () => Promise<string>) => {
      const busy = async () => {
        const scope = { workspace_id: workspaceId };
        const [calls, holds, messages, undelivered] = await Promise.all([
          h
            .db('calls')
            .where(scope)
            .whereIn('environment', environments)
            .andWhere((q) => q.whereIn('status', [...ACTIVE_CALL_STATUSES]).orWhereNull('charge_cents'))
            .count<{ n: string }[]>('id as n'),
          h
            .db('spend_holds')
            .where({ ...scope, status: 'active' })
            .whereIn('environment', environments)
            .count<{ n: string }[]>('id as n'),
          h
            .db('messages')
            .where(scope)
            .whereIn('environment', environments)
            .whereIn('status', ['queued', 'sent'])
            .count<{ n: string }[]>('id as n'),
          h
            .db('webhook_events as e')
            .where({ 'e.workspace_id': workspaceId })
            .whereIn('e.environment', environments)
            .whereNotExists((q) =>
              q.select(h.db.raw('1')).from('webhook_deliveries as d').whereRaw('d.event_id = e.id').andWhere('d.status', 'success'),
            )
            .count<{ n: string }[]>('e.id as n'),
        ]);
        return [calls, holds, messages, undelivered].some(([{ n }]) => Number(n) > 0);
      };
      let previous = '';
      let stableSince = 0;
      return eventually(
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 500)); // pacing: the snapshot is sampled every 500 ms until stable for 3 s
          const current = await snapshot();
          if (current !== previous || (await busy())) stableSince = Date.now();
          previous = current;
          return Date.now() - stableSince >= 3_000 ? current : undefined;
        },
        60_000,
        'the tenant to go quiet',
      );
    };
    bBaseline = await quiet(b.workspaceId, ['test', 'live'], () => tenantSnapshot(h.db, b.workspaceId));
    aLiveBaseline = await quiet(a.workspaceId, ['live'], () =>
      tenantSnapshot(h.db, a.workspaceId, { environment: 'live', ignoreColumns: ['last_used_at'] }),
    );
    const bLines = await h.db('lines').where({ workspace_id: b.workspaceId }).pluck('phone_number');
    bSecrets = new Set([...uuidsIn(bBaseline), ...bLines]);

    const db = h.db;
    const traitsOf = (row: { kind: 'standard' | 'service'; permissions: Tier; scopes: string[] }): KeyTraits => ({
      kind: row.kind,
      permissions: row.permissions,
      scopes: row.scopes,
    });
    const findRow = (plaintext: string) =>
      db('api_keys')
        .where({ key_hash: hashKey(plaintext) })
        .first();
    ownerTraits = traitsOf(await findRow(a.keys.test));
    keys.revoked = await mintKey(db, a.owner, 'test', [...SCOPES]);
    keys.expired = await mintKey(db, a.owner, 'test', [...SCOPES]);
    keys.revokedService = (
      await mintUserKey(db, { user: a.owner, environment: 'test', kind: 'service', name: 'revoked service' })
    ).plaintext;
    keys.expiredService = (
      await mintUserKey(db, { user: a.owner, environment: 'test', kind: 'service', name: 'expired service' })
    ).plaintext;
    const past = new Date(Date.now() - 60_000);
    for (const key of [keys.revoked, keys.revokedService])
      await db('api_keys')
        .where({ id: (await findRow(key)).id })
        .update({ revoked_at: past });
    for (const key of [keys.expired, keys.expiredService])
      await db('api_keys')
        .where({ id: (await findRow(key)).id })
        .update({ expires_at: past });
    keys.missingScope = Object.fromEntries(
      await Promise.all(
        SCOPES.map(async (scope) => [
          scope,
          await mintKey(
            db,
            a.owner,
            'test',
            SCOPES.filter((s) => s !== scope),
          ),
        ]),
      ),
    );
    const serviceKey = await findRow(a.keys.serviceTest);
    const agentKey = async (tier: Tier, lineId: string | null) => {
      const minted = await db.transaction((trx) =>
        mintAgentKey(trx, {
          owner: { workspaceId: a.workspaceId, userId: a.owner.id, role: a.owner.role, environment: 'test' },
          fields: {
            name: `matrix ${tier}`,
            agent_label: null,
            line_id: lineId,
            permissions: tier === 'legacy_full' ? 'full' : tier,
            monthly_cap_cents: null,
          },
          minter: serviceKey,
          now: new Date(),
        }),
      );
      // legacy_full marks keys from before tiers existed: it cannot be set through the API.
      if (tier === 'legacy_full') await db('api_keys').where({ id: minted.row.id }).update({ permissions: 'legacy_full' });
      return { plaintext: minted.plaintext, traits: traitsOf(await findRow(minted.plaintext)) };
    };
    keys.tiers = Object.fromEntries(await Promise.all(TIERS.map(async (tier) => [tier, await agentKey(tier, null)]))) as typeof keys.tiers;
    keys.boundToOtherLine = await agentKey('full', fx.aTest.spareLineIds[0]);
  }, 300_000);

  const outcomeOf = (res: TestResponse): Outcome => ({ status: res.status, code: res.body?.error?.code ?? 'ok' });
  const describeResponse = (res: TestResponse) => `${res.status} ${res.text.slice(0, 300)}`;

  /** No response to A names B (its ids, its numbers), unless A's own request did. */
  const assertNoLeak = (cell: string, request: ReturnType<typeof toRequest>, res: TestResponse, extra: Set<string> = new Set()) => {
    const sent = `${request.path} ${JSON.stringify(request.body ?? '')}`.toLowerCase();
    const text = res.text.toLowerCase();
    for (const secret of [...bSecrets, ...extra]) {
      if (!sent.includes(secret.toLowerCase()) && text.includes(secret.toLowerCase()))
        throw new Error(`${cell}: the response carries another tenant's ${secret}: ${describeResponse(res)}`);
    }
  };

  const expectOutcome = (cell: string, res: TestResponse, expected: Outcome) => {
    if (res.status !== expected.status || outcomeOf(res).code !== expected.code) {
      throw new Error(`${cell}: expected ${expected.status} ${expected.code}, got ${describeResponse(res)}`);
    }
    if (res.status >= 400)
      expect(res.body).toEqual({ error: expect.objectContaining({ code: expected.code, message: expect.any(String) }) });
  };

  const expectUnchanged = async (route: string, cells: string[]) => {
    const bNow = await tenantSnapshot(h.db, b.workspaceId);
    if (bNow !== bBaseline)
      throw new Error(`${route}: tenant B's data changed after the cells ${cells.join(', ')}:\n${snapshotDiff(bBaseline, bNow)}`);
    const aLiveNow = await tenantSnapshot(h.db, a.workspaceId, { environment: 'live', ignoreColumns: ['last_used_at'] });
    if (aLiveNow !== aLiveBaseline)
      throw new Error(`${route}: A's live data changed after the cells ${cells.join(', ')}:\n${snapshotDiff(aLiveBaseline, aLiveNow)}`);
  };

  /** The 2xx body matches the schema the document gives it (the fuzzer rarely reaches live calls). */
  const expectDocumentedBody = (route: RouteDef, res: TestResponse) => {
    const schema = route.doc.responses[String(res.status)]?.content?.['application/json']?.schema;
    if (!schema) return;
    const validate = ajv.compile(inlineRefs(schema));
    if (!validate(res.body))
      throw new Error(
        `${route.operationId}: the ${res.status} body does not match its documented schema: ${ajv.errorsText(validate.errors)}\n${res.text.slice(0, 500)}`,
      );
  };

  it.each(routeCases)(
    '%s',
    async (_label, route, path) => {
      const fixture = OPERATION_FIXTURES[route.operationId];
      if (!fixture && needsFixture(route))
        throw new Error(
          `No fixture for ${route.operationId} (${route.method.toUpperCase()} ${path}): add one to OPERATION_FIXTURES in test/support/authMatrix.ts`,
        );
      const build = async (mode: ResourceMode) => {
        const view = resourcesFor(mode);
        const spec = fixture ? await fixture(view.resources) : {};
        return { request: toRequest(route, path, spec), namesLine: view.namesLine(), namesId: view.namesId() };
      };
      await clearRateLimits(h.db, [a.workspaceId, b.workspaceId]);
      const kind = route.auth.kind as string;
      switch (kind) {
        case 'standard':
        case 'service':
          await keyedRoute(route, build, kind);
          break;
        case 'public':
        case 'carrier':
        case 'stripe':
          await unkeyedRoute(route, build, kind);
          break;
        default:
          throw new Error(
            `The auth matrix does not know the auth kind "${kind}" of ${route.operationId} (${path}): add its expectations to test/integration/authMatrix.test.ts`,
          );
      }
    },
    120_000,
  );

  type Build = (mode: ResourceMode) => Promise<{ request: ReturnType<typeof toRequest>; namesLine: boolean; namesId: boolean }>;

  /** Routes a tenant's key opens: the standard plane and the service-key plane. */
  async function keyedRoute(route: RouteDef, build: Build, kind: 'standard' | 'service') {
    const service = kind === 'service';
    const owner = { test: service ? a.keys.serviceTest : a.keys.test, live: service ? a.keys.serviceLive : a.keys.live };
    const own = await build({ kind: 'fixtures', fixtures: fx.aTest });
    // The reference: A's owner key on ids that exist nowhere. Cells that must not reveal whether an
    // id exists (another tenant's, another environment's) answer exactly this.
    const unknownRequest = async () => (await build({ kind: 'unknown', fixtures: fx.aTest })).request;
    const reference = outcomeOf(await send(await unknownRequest(), bearer(owner.test)));
    if (reference.status === 401 || reference.status === 403 || reference.status >= 500)
      throw new Error(`${route.operationId}: the owner's request on unknown ids got ${reference.status} ${reference.code}`);

    const cells: Array<{ name: string; run: () => Promise<void> }> = [];
    const cell = (
      name: string,
      request: ReturnType<typeof toRequest>,
      credential: Credential,
      check: (res: TestResponse) => void,
      extraSecrets?: Set<string>,
    ) =>
      cells.push({
        name,
        run: async () => {
          const res = await send(request, credential);
          assertNoLeak(name, request, res, extraSecrets);
          check(res);
        },
      });
    const refused = (expected: Outcome) => (name: string) => (res: TestResponse) => expectOutcome(name, res, expected);
    const asUnknownIds = (name: string, expected: Outcome, pathId: boolean) => (res: TestResponse) => {
      expectOutcome(name, res, expected);
      // Another tenant's (or environment's) resource in the path or as `line_id` is simply not found, with the resource's own code.
      if (pathId) {
        expect(res.status).toBe(404);
        const notFound = route.doc.parameters?.find((p) => p.in === 'path' && 'x-not-found' in p) as
          { 'x-not-found'?: { code: string } } | undefined;
        expect(res.body.error.code).toBe(notFound?.['x-not-found']?.code ?? 'not_found');
      }
    };

    const credentials: Array<[string, Credential, Outcome]> = [
      ['no Authorization header', {}, { status: 401, code: 'unauthorized' }],
      ['a malformed key', { authorization: 'Bearer sk_test_short' }, { status: 401, code: 'invalid_api_key' }],
      ['not a bearer credential', { authorization: 'Basic dXNlcjpwYXNz' }, { status: 401, code: 'invalid_api_key' }],
      ['an unknown key', bearer(generateKey(service ? 'service' : 'standard', 'test').plaintext), { status: 401, code: 'invalid_api_key' }],
      ['a revoked key', bearer(service ? keys.revokedService : keys.revoked), { status: 401, code: 'invalid_api_key' }],
      ['an expired key', bearer(service ? keys.expiredService : keys.expired), { status: 401, code: 'invalid_api_key' }],
      [
        service ? 'a standard key on the keys plane' : 'a service key on the standard plane',
        bearer(service ? a.keys.test : a.keys.serviceTest),
        { status: 401, code: 'invalid_api_key' },
      ],
      [
        service ? 'a live standard key on the keys plane' : 'a live service key on the standard plane',
        bearer(service ? a.keys.live : a.keys.serviceLive),
        { status: 401, code: 'invalid_api_key' },
      ],
    ];
    for (const [name, credential, expected] of credentials) cell(name, own.request, credential, refused(expected)(name));

    if (route.auth.kind === 'standard') {
      const auth = route.auth;
      const scopeName = `a key without ${auth.scope}`;
      cell(scopeName, own.request, bearer(keys.missingScope[auth.scope]), (res) => {
        expectOutcome(scopeName, res, { status: 403, code: 'forbidden' });
        expect(res.body.error.details).toEqual([{ field: 'scope', message: auth.scope }]);
      });
      for (const tier of TIERS) {
        const { plaintext, traits } = keys.tiers[tier];
        const name = `an agent key of tier ${tier}`;
        const refusal = authRefusal(auth, traits);
        if (refusal) {
          cell(name, own.request, bearer(plaintext), (res) => {
            expectOutcome(name, res, refusal);
            if (refusal.code === 'agent_permission_denied')
              expect(res.body.error.details).toEqual([
                { field: 'tier', message: tier },
                { field: 'verb', message: auth.verb },
              ]);
          });
        } else {
          // Let through: on unknown ids it gets what the owner gets (a handler's own policy may
          // still refuse a delegated key, but never with the auth layer's refusals).
          cell(name, await unknownRequest(), bearer(plaintext), (res) => {
            if (outcomeOf(res).status === reference.status && outcomeOf(res).code === reference.code) return;
            if (res.status === 403 && !isAuthLayerRefusal(res)) return;
            throw new Error(`${name}: expected what the owner gets (${reference.status} ${reference.code}), got ${describeResponse(res)}`);
          });
        }
      }
      const bound = keys.boundToOtherLine;
      const boundName = 'a key bound to another line';
      if (own.namesLine) {
        cell(
          boundName,
          own.request,
          bearer(bound.plaintext),
          refused(authRefusal(auth, bound.traits) ?? { status: 403, code: 'agent_scope_error' })(boundName),
        );
      } else if (route.method === 'get') {
        // Lists are filtered to the bound line: nothing of A's other line shows.
        const otherLine = new Set([fx.aTest.lineId, fx.aTest.liveCallId, fx.aTest.endedCallId]);
        cell(boundName, own.request, bearer(bound.plaintext), (res) => expect(res.status).toBeLessThan(500), otherLine);
      }
    }

    if (own.namesId) {
      const referenceLive = outcomeOf(await send(await unknownRequest(), bearer(owner.live)));
      const pathId =
        /\{/.test(route.path) || (typeof own.request.body === 'object' && own.request.body !== null && 'line_id' in own.request.body);
      const other = (await build({ kind: 'fixtures', fixtures: fx.bTest })).request;
      cell("another tenant's ids", other, bearer(owner.test), asUnknownIds("another tenant's ids", reference, pathId));
      const otherLive = (await build({ kind: 'fixtures', fixtures: fx.bLive })).request;
      cell(
        "another tenant's live ids with a live key",
        otherLive,
        bearer(owner.live),
        asUnknownIds("another tenant's live ids with a live key", referenceLive, pathId),
      );
      const liveIds = uuidsIn(aLiveBaseline);
      cell(
        'a test key on live ids',
        (await build({ kind: 'fixtures', fixtures: fx.aLive })).request,
        bearer(owner.test),
        asUnknownIds('a test key on live ids', reference, pathId),
        liveIds,
      );
      cell('a live key on test ids', own.request, bearer(owner.live), asUnknownIds('a live key on test ids', referenceLive, pathId));
    }

    const results = await Promise.allSettled(cells.map((c) => c.run()));
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [(result.reason as Error).message] : []));
    if (failures.length > 0)
      throw new Error(`${route.operationId}: ${failures.length} of ${cells.length} cells failed:\n- ${failures.join('\n- ')}`);
    await expectUnchanged(
      route.operationId,
      cells.map((c) => c.name),
    );

    // Control: the owner's own request succeeds, so every refusal above was about the credential.
    const positive = (
      await build({
        kind: 'fresh',
        fixtures: fx.aTest,
        make: {
          line: disposableLine,
          agentKey: async () =>
            (
              await h.request('POST', '/v1/keys', {
                key: a.keys.serviceTest,
                body: { name: 'disposable' },
                headers: { 'idempotency-key': crypto.randomUUID() },
              })
            ).body.key.id,
          apiToken: async () =>
            (await h.request('POST', '/api-tokens', { key: a.keys.test, body: { name: 'disposable', grant: { scopes: ['read'] } } })).body
              .api_token.id,
          consent: async (lineId) => {
            const number = remoteNumber();
            await h.request('POST', '/api/v1/consent', {
              key: a.keys.test,
              body: { line_id: lineId, phone_number: number, consent_type: 'explicit_outbound' },
            });
            return number;
          },
          campaign: async (lineId) =>
            (await h.request('POST', '/api/v1/campaigns', { key: a.keys.test, body: dormantCampaign(lineId) })).body.campaign.id,
          contactList: () => uploadFixtureContactList(h, a.keys.test),
        },
      })
    ).request;
    await clearRateLimits(h.db, [a.workspaceId, b.workspaceId]);
    const res = await send(positive, bearer(owner.test));
    if (res.status !== successStatus(route))
      throw new Error(
        `${route.operationId}: the owner's own request got ${describeResponse(res)}, not ${successStatus(route)}: the fixture does not make a valid request`,
      );
    assertNoLeak('the owner’s own request', positive, res);
    expectDocumentedBody(route, res);
    await expectUnchanged(route.operationId, ["the owner's own request"]);
  }

  /** A new active line of A's test environment, for requests that use one up. */
  async function disposableLine(): Promise<string> {
    const created = await h.request('POST', '/api/v1/lines', {
      key: a.keys.test,
      body: { name: 'Disposable', mode: 'webhook', webhook_url: receiver.url },
    });
    if (created.status !== 201) throw new Error(`could not make a disposable line: ${describeResponse(created)}`);
    const id = created.body.line.id as string;
    await untilLineActive(h.temporal, id, async () => (await h.request('GET', `/api/v1/lines/${id}`, { key: a.keys.test })).body.line);
    return id;
  }

  /**
   * Routes no tenant key opens: public ones (a key changes nothing about the answer) and carrier
   * callbacks (a tenant's key is never a carrier's credential). Forged carrier events aim at B.
   */
  async function unkeyedRoute(route: RouteDef, build: Build, kind: 'public' | 'carrier' | 'stripe') {
    const request = (await build({ kind: 'fixtures', fixtures: fx.bTest })).request;
    const anonymous = await send(request, {});
    const credentials: Array<[string, Credential]> = [
      ['a malformed key', { authorization: 'Bearer sk_test_short' }],
      ['an unknown key', bearer(generateKey('standard', 'test').plaintext)],
      ['a revoked key', bearer(keys.revoked)],
      ["A's test key", bearer(a.keys.test)],
      ["A's live key", bearer(a.keys.live)],
      ["A's service key", bearer(a.keys.serviceTest)],
      ["B's own test key", bearer(fx.bTest.key)],
    ];
    const names = ['no Authorization header', ...credentials.map(([name]) => name)];
    if (kind !== 'public') expect(anonymous.status).toBe(401);
    const responses = await Promise.all(credentials.map(async ([name, credential]) => [name, await send(request, credential)] as const));
    for (const [name, res] of responses) {
      expectOutcome(`${name} on ${route.operationId}`, res, outcomeOf(anonymous));
      if (name !== "B's own test key") assertNoLeak(name, request, res);
    }
    await expectUnchanged(route.operationId, names);
  }

  it('covers every operation of the route table and knows every fixture it has', () => {
    const operations = new Set(allRoutes(() => '').map((route) => route.operationId));
    expect(Object.keys(OPERATION_FIXTURES).filter((id) => !operations.has(id))).toEqual([]);
    expect(ownerTraits).toMatchObject({ kind: 'standard', permissions: 'full' });
  });
});
