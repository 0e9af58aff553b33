/**
 * bench:api's write routes and their floors (issue 33): each route is measured against bare Koa parsing the same
 * JSON body and doing as many single-row INSERTs, one statement each, as the route writes rows
 * (docs/decisions/api.md "The write floor of bench:api").
 */
import crypto from 'node:crypto';
import type autocannon from 'autocannon';
import Koa from 'koa';
import getRawBody from 'raw-body';
import type { Db } from '../../src/platform/db/knex';
import { RATE_LIMITS } from '../../src/domain/limits/policies';
import { mintUserKey } from '../../src/domain/keys/userKeys';
import { createBenchWorkspace, insertActiveLine } from './tenant';

export type WriteRoute = 'consent' | 'message' | 'line_sms';

/** A tenant of the write rows: its key and its line. */
export interface WriteTenant {
  key: string;
  lineId: string;
}

/** The recipient every message goes to; each tenant's line holds an `explicit_outbound` consent for it. */
const MESSAGE_RECIPIENT = '+14155550123';

interface RouteShape {
  title: string;
  /** The rows one request inserts or upserts, by table: the floor does that many INSERTs. */
  rowsWritten: readonly string[];
  /** How many requests one tenant may make in the run (its rate limit's window is longer than a run). */
  perTenant: number;
  path: (tenant: WriteTenant) => string;
  body: (tenant: WriteTenant, n: number) => unknown;
}

export const WRITE_ROUTES: Record<WriteRoute, RouteShape> = {
  consent: {
    title: 'switchboard POST consent',
    rowsWritten: ['idempotency_keys', 'rate_limit_windows', 'consents', 'compliance_events'],
    perTenant: RATE_LIMITS['consent.create'].limit,
    path: () => '/api/v1/consent',
    // A number of its own per request: a repeat would be 409 `consent_already_granted`.
    body: (tenant, n) => ({
      line_id: tenant.lineId,
      phone_number: `+1415555${String(n).padStart(4, '0')}`,
      consent_type: 'explicit_outbound',
    }),
  },
  message: {
    title: 'switchboard POST messages',
    rowsWritten: ['idempotency_keys', 'rate_limit_windows', 'spend_holds', 'messages', 'conversations', 'compliance_events'],
    perTenant: RATE_LIMITS['messages.create'].limit,
    path: () => '/api/v1/messages',
    body: (tenant) => ({ line_id: tenant.lineId, to: MESSAGE_RECIPIENT, text: 'Your table for two is ready.' }),
  },
  line_sms: {
    title: 'switchboard POST lines/{id}/sms',
    rowsWritten: ['idempotency_keys', 'rate_limit_windows', 'spend_holds', 'messages', 'conversations', 'compliance_events'],
    perTenant: RATE_LIMITS['messages.create'].limit,
    path: (tenant) => `/api/v1/lines/${tenant.lineId}/sms`,
    body: () => ({ to_number: MESSAGE_RECIPIENT, message: 'Your table for two is ready.' }),
  },
};

/** What the load generator is given for a write row (plain data: it crosses to the child process as JSON). */
export interface WriteLoad {
  route: WriteRoute;
  tenants: WriteTenant[];
  /** The floor's requests carry the route's body to a bare server at `/`. */
  floor?: boolean;
}

/**
 * The requests of a write row, round-robin over the tenants (a fleet of agents in many workspaces): request n goes to
 * tenant n mod T as its (n div T)-th request. Once every tenant has made `perTenant` requests the limiter answers 429,
 * which fails the run: raise the tenant count.
 */
export function writeRequests(write: WriteLoad): autocannon.Request[] {
  const shape = WRITE_ROUTES[write.route];
  const count = write.tenants.length;
  let sent = 0;
  return [
    {
      method: 'POST',
      setupRequest: (req) => {
        const n = sent;
        sent += 1;
        const tenant = write.tenants[n % count];
        return {
          ...req,
          path: write.floor ? '/' : shape.path(tenant),
          headers: {
            authorization: `Bearer ${tenant.key}`,
            'content-type': 'application/json',
            'idempotency-key': crypto.randomUUID(),
          },
          body: JSON.stringify(shape.body(tenant, Math.floor(n / count))),
        };
      },
    },
  ];
}

/** Tenants for one route's row, each with a test key, an active line and the consent its messages rely on. */
export async function createWriteTenants(db: Db, route: WriteRoute, count: number): Promise<WriteTenant[]> {
  const tenants: WriteTenant[] = [];
  const one = async (): Promise<WriteTenant> => {
    const t = await createBenchWorkspace(db);
    const lineId = await lineWithFreeNumber(db, t);
    if (route !== 'consent') {
      await db('consents').insert({
        workspace_id: t.workspace.id,
        environment: 'test',
        line_id: lineId,
        phone_number: MESSAGE_RECIPIENT,
        consent_type: 'explicit_outbound',
        source: 'bench',
        status: 'active',
        granted_at: new Date(),
      });
    }
    const key = (await mintUserKey(db, { user: t.owner, environment: 'test', kind: 'standard', name: 'bench' })).plaintext;
    return { key, lineId };
  };
  // Ten at a time: each is a few round trips and a key hash.
  for (let i = 0; i < count; i += 10) {
    tenants.push(...(await Promise.all(Array.from({ length: Math.min(10, count - i) }, one))));
  }
  return tenants;
}

/** An active line on a random number; another try when a line of this run or a kept database's has it. */
async function lineWithFreeNumber(db: Db, tenant: Awaited<ReturnType<typeof createBenchWorkspace>>): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await insertActiveLine(db, {
        ...tenant,
        webhookUrl: 'https://agent.example.test/hooks',
        phoneNumber: `+1500${String(crypto.randomInt(0, 10_000_000)).padStart(7, '0')}`,
      });
    } catch (err) {
      if ((err as { constraint?: string }).constraint !== 'lines_phone_number_in_use' || attempt >= 5) throw err;
    }
  }
}

export const SCRATCH_TABLE = 'bench_scratch_writes';

export async function createScratchTable(db: Db): Promise<void> {
  await db.schema.dropTableIfExists(SCRATCH_TABLE);
  await db.schema.createTable(SCRATCH_TABLE, (t) => {
    t.bigIncrements('id');
    t.jsonb('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

/**
 * A write row's floor: bare Koa reading and parsing the JSON body, then `inserts` single-row INSERTs into a scratch
 * table, one after the other, each its own statement and round trip (autocommit), through the same kind of knex pool.
 */
export function koaWithInserts(db: Db, inserts: number): Koa {
  const koa = new Koa();
  koa.use(async (ctx) => {
    const body = JSON.parse(await getRawBody(ctx.req, { limit: '1mb', encoding: 'utf8' })) as Record<string, unknown>;
    let row: { id: string } | undefined;
    for (let i = 0; i < inserts; i += 1) [row] = await db(SCRATCH_TABLE).insert({ body }).returning('*');
    ctx.status = 201;
    ctx.body = { row };
  });
  return koa;
}
