import { parseArgs } from 'node:util';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { loadConfig, requireSetting, type Config } from '../platform/config';
import { PROVIDER_SETTINGS } from '../adapters/settings';
import { assertStartupConfiguration, ConfigurationError } from '../platform/startupCheck';
import { parseSecretsKey } from '../platform/crypto/secretBox';
import { createDb, migrateLatest, type Db } from '../platform/db/knex';
import { resealSecrets } from '../domain/lines/secrets';
import { addPaymentMethod, parseCardExpiry } from '../domain/billing/addPaymentMethod';
import { createLogger } from '../platform/logger';
import type { CardEntry } from '../adapters/payments/port';
import { cardVaultsFor } from './payments';
import type { Environment } from '../domain/keys/format';
import { revokeServiceKey } from '../domain/keys/serviceKeys';
import { approveWorkspace, pendingWorkspaces } from '../domain/accounts/approveWorkspace';
import { inviteMember } from '../domain/accounts/inviteMember';
import { optIn, optOut, optOutsOf } from '../domain/compliance/optOuts';
import { grantNumber, numberGrantsOfTenant, revokeNumberGrant } from '../domain/lines/numberGrants';
import { toE164 } from '../platform/phone';
import { isRole, isScope, type Scope } from '../domain/keys/scopes';
import { workflowIds } from '../../workflows/definitions/ids';
import { addUser, createWorkspace, findUser, workspaceOwner, type User } from '../domain/workspaces/service';
import { mintServiceKey } from '../domain/keys/serviceKeys';
import { mintRegularKey, mintUserKey, ScopeBeyondRoleError } from '../domain/keys/userKeys';

/*
 * Temporal's client, worker and the history tools load only for the history commands (and `payment-method add`, which
 * tells the auto-charge workflow of the new card): every other command talks to Postgres alone, and loading them cost
 * each run of the CLI about a third of its start-up. test/unit/cliStartup.test.ts keeps them out of its start-up.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, as said above */
const autoChargeArea = () => require('../domain/billing/autoCharge') as typeof import('../domain/billing/autoCharge');
const temporalClient = () => require('../platform/temporal/client') as typeof import('../platform/temporal/client');
const histories = () => require('../platform/temporal/histories') as typeof import('../platform/temporal/histories');
const temporalSdk = () => require('@temporalio/client') as typeof import('@temporalio/client');
const temporalWorker = () => require('@temporalio/worker') as typeof import('@temporalio/worker');
const temporalCommon = () => require('@temporalio/common') as typeof import('@temporalio/common');
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The operator CLI: the stand-in for the portal. Every command prints one JSON object
 * with --json, or readable lines without it; failures exit 1 with a clear message.
 */
class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** Printed alongside `error` with --json (e.g. the replay result a script checks). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * The Temporal client, connected only when a command needs it (the history commands);
 * everything else talks to Postgres alone. Whoever creates one closes it.
 */
export class LazyTemporal {
  private client: Promise<Client> | undefined;

  get(): Promise<Client> {
    if (!this.client) {
      const config = loadConfig();
      this.client = temporalClient().connectDeploymentTemporal(config);
    }
    return this.client;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await (await client.catch(() => undefined))?.connection.close();
  }
}

type Flags = Record<string, string | boolean | undefined>;

function envOf(flags: Flags): Environment {
  const env = flags.env;
  if (env !== 'test' && env !== 'live') throw new CliError('invalid_argument', '--env must be test or live');
  return env;
}

function stringFlag(flags: Flags, name: string, required: true): string;
function stringFlag(flags: Flags, name: string, required?: false): string | undefined;
function stringFlag(flags: Flags, name: string, required = false): string | undefined {
  const value = flags[name];
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (required) throw new CliError('invalid_argument', `--${name} is required`);
  return undefined;
}

async function resolveUser(db: Db, flags: Flags): Promise<User> {
  const workspaceId = stringFlag(flags, 'workspace', true);
  if (!/^[0-9a-f-]{36}$/i.test(workspaceId)) throw new CliError('not_found', `workspace ${workspaceId} not found`);
  const userId = stringFlag(flags, 'user');
  const user = userId ? await findUser(db, userId) : await workspaceOwner(db, workspaceId);
  if (!user || user.workspace_id !== workspaceId)
    throw new CliError('not_found', userId ? `user ${userId} not found in workspace ${workspaceId}` : `workspace ${workspaceId} not found`);
  return user;
}

function parseScopes(raw: string | undefined): Scope[] | undefined {
  if (!raw) return undefined;
  const scopes = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw new CliError('invalid_argument', `unknown scopes: ${unknown.join(', ')}`);
  return scopes as Scope[];
}

/** Relative paths are the operator's: `npm run` moves to the package root but records where it started. */
function operatorPath(file: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
}

/** The id as given first, then every single-id workflow id made from it (`line-provision:<id>`, ...). */
function candidateWorkflowIds(id: string): string[] {
  const derived = Object.values(workflowIds)
    .filter((make): make is (id: string) => string => make.length === 1)
    .map((make) => make(id));
  return [...new Set([id, ...derived])];
}

/**
 * Replay runs a worker in this process; by default its native core logs (the nondeterminism
 * warning among them) go to stdout, which must stay one JSON object. Errors only, to stderr.
 * (Already installed, e.g. in a test process: that one is kept.)
 */
function quietTemporalRuntime(): void {
  const { DefaultLogger, makeTelemetryFilterString, Runtime } = temporalWorker();
  const { IllegalStateError } = temporalCommon();
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
    });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}

async function historyExport(temporal: LazyTemporal, args: string[], flags: Flags): Promise<Record<string, unknown>> {
  const id = args[2]?.trim();
  if (!id || args.length > 3) throw new CliError('invalid_argument', 'usage: history export <workflow-id|call-id> [--out FILE]');
  const client = await temporal.get();
  const { WorkflowNotFoundError } = temporalSdk();
  const { exportHistory } = histories();
  const tried = candidateWorkflowIds(id);
  for (const workflowId of tried) {
    let exported;
    try {
      exported = await exportHistory(client, workflowId);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) continue;
      throw err;
    }
    const file = operatorPath(stringFlag(flags, 'out') ?? `${workflowId.replace(/:/g, '_')}.history.json`);
    fs.writeFileSync(file, JSON.stringify(exported.history, null, 2) + '\n');
    return { workflow_id: exported.workflowId, run_id: exported.runId ?? null, events: exported.history.events.length, file };
  }
  throw new CliError('not_found', `no workflow history found for ${id} (tried ${tried.join(', ')})`);
}

async function historyReplay(args: string[]): Promise<Record<string, unknown>> {
  const given = args[2];
  if (!given || args.length > 3) throw new CliError('invalid_argument', 'usage: history replay <file>');
  const file = operatorPath(given);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError('not_found', `cannot read ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CliError('invalid_history', `${file} is not a workflow history: not JSON (${(err as Error).message})`);
  }
  quietTemporalRuntime();
  const { InvalidHistoryError, replayHistoryFile } = histories();
  const { payloadCodecOf } = temporalClient();
  let outcome;
  try {
    // With the deployment's key, a history as the server keeps it (encrypted) replays too; without one, a decrypted export.
    const config = loadConfig();
    outcome = await replayHistoryFile(json, undefined, config.temporalPayloadKey ? payloadCodecOf(config) : undefined);
  } catch (err) {
    if (err instanceof InvalidHistoryError) throw new CliError('invalid_history', `${file} is ${err.message}`);
    throw err;
  }
  if (outcome.ok) return { file, workflow_type: outcome.workflowType, result: 'pass' };
  const what = outcome.nondeterminism
    ? `${outcome.workflowType} is not deterministic against the current workflow code (a running workflow with this history would break)`
    : `${outcome.workflowType} failed to replay`;
  throw new CliError('replay_failed', `replay of ${file} failed: ${what}: ${outcome.error}`, {
    file,
    workflow_type: outcome.workflowType,
    result: 'fail',
    nondeterminism: outcome.nondeterminism,
  });
}

/**
 * The card `payment-method add` saves, as the flags give it: with the simulator a test card number
 * (tokenised in this process); with Stripe only the id of a PaymentMethod the card was entered
 * into on Stripe (a SetupIntent attached it to a Customer), so no card number is handled.
 */
function cardEntryOf(flags: Flags): CardEntry {
  if (flags['stripe-payment-method'] !== undefined) {
    if (flags.card !== undefined) throw new CliError('invalid_argument', 'pass --card or --stripe-payment-method, not both');
    return { kind: 'stripe_payment_method', paymentMethodId: stringFlag(flags, 'stripe-payment-method', true) };
  }
  const expiry = parseCardExpiry(stringFlag(flags, 'exp', true));
  if (!expiry) throw new CliError('invalid_argument', '--exp must be MM/YY or MM/YYYY');
  return { kind: 'card_number', number: stringFlag(flags, 'card', true), ...expiry };
}

/** `key create` and `service-key create`: a key of `kind` for a user of the workspace. */
async function createKey({ db, flags }: CommandContext, kind: 'standard' | 'service'): Promise<Record<string, unknown>> {
  const user = await resolveUser(db, flags);
  const environment = envOf(flags);
  const name = stringFlag(flags, 'name') ?? `${kind} key`;
  let minted;
  try {
    minted =
      kind === 'service'
        ? await mintServiceKey(db, { user, environment, name, now: new Date() })
        : await mintRegularKey(db, {
            user,
            environment,
            name,
            scopes: parseScopes(stringFlag(flags, 'scopes')),
            via: 'cli',
            now: new Date(),
          });
  } catch (err) {
    if (err instanceof ScopeBeyondRoleError) throw new CliError('forbidden', err.message);
    throw err;
  }
  return {
    id: minted.row.id,
    key: minted.plaintext,
    key_prefix: minted.row.key_prefix,
    environment,
    kind,
    scopes: minted.row.scopes,
    user_id: user.id,
    workspace_id: user.workspace_id,
  };
}

/** `opt-out add` (`optedOut`) and `opt-out remove`: stop, or allow again, calls and SMS to a number. */
async function changeOptOut({ db, flags }: CommandContext, optedOut: boolean): Promise<Record<string, unknown>> {
  const user = await resolveUser(db, flags);
  const environment = envOf(flags);
  const raw = stringFlag(flags, 'number', true);
  const phoneNumber = toE164(raw);
  if (!phoneNumber) throw new CliError('invalid_argument', `--number ${raw} is not a valid phone number`);
  const input = { tenant: { workspaceId: user.workspace_id, environment }, phoneNumber, source: 'operator' as const, at: new Date() };
  const changed = optedOut ? await optOut(db, input) : await optIn(db, input);
  return { phone_number: phoneNumber, environment, opted_out: optedOut, changed };
}

/** What a command's handler gets: the database, the words and flags it was given, Temporal and the configuration. */
interface CommandContext {
  db: Db;
  /** The positionals, the command's words first (`history export <id>`: args[2] is the id). */
  args: string[];
  flags: Flags;
  /** The client for the history commands, if the caller holds one. */
  temporal: LazyTemporal | undefined;
  config: Config;
}

interface CommandDefinition {
  /** Its lines in the usage text; null when the command before it lists both (`opt-out add|remove`). */
  usage: string | null;
  run(context: CommandContext): Promise<Record<string, unknown>>;
}

/**
 * Every command: its name, its usage lines (the usage text lists them in this order) and what it
 * runs. docs/portal.md maps each to its portal page or says why it stays CLI-only.
 */
const COMMANDS = {
  migrate: {
    usage: `  migrate                                   apply database migrations`,
    run: async ({ db }) => {
      const applied = await migrateLatest(db);
      return { applied };
    },
  },
  bootstrap: {
    usage: `  bootstrap [--name N] [--email E]          create a workspace, its owner, and test/live/service keys`,
    run: async ({ db, flags }) => {
      const suffix = crypto.randomBytes(4).toString('hex');
      const { workspace, owner } = await createWorkspace(db, {
        name: stringFlag(flags, 'name') ?? `Workspace ${suffix}`,
        ownerEmail: stringFlag(flags, 'email') ?? `owner+${suffix}@switchboard.local`,
      });
      const mint = async (environment: Environment, kind: 'standard' | 'service') => {
        const name = `bootstrap ${kind} ${environment}`;
        const minted =
          kind === 'service'
            ? await mintServiceKey(db, { user: owner, environment, name, now: new Date() })
            : await mintUserKey(db, { user: owner, environment, kind, name });
        return minted.plaintext;
      };
      return {
        workspace_id: workspace.id,
        user_id: owner.id,
        owner_email: owner.email,
        test_key: await mint('test', 'standard'),
        live_key: await mint('live', 'standard'),
        service_test_key: await mint('test', 'service'),
        service_live_key: await mint('live', 'service'),
      };
    },
  },
  'workspace create': {
    usage: `  workspace create --name N --owner-email E create a workspace and its owner user`,
    run: async ({ db, flags }) => {
      const { workspace, owner } = await createWorkspace(db, {
        name: stringFlag(flags, 'name', true),
        ownerEmail: stringFlag(flags, 'owner-email', true),
      });
      return { workspace_id: workspace.id, name: workspace.name, user_id: owner.id, owner_email: owner.email };
    },
  },
  'workspace pending': {
    usage: `  workspace pending                         workspaces signed up under SIGNUP_MODE=approval, awaiting approval`,
    run: async ({ db }) => {
      const pending = await pendingWorkspaces({ db });
      return {
        workspaces: pending.map((w) => ({
          workspace_id: w.id,
          name: w.name,
          owner_email: w.owner_email,
          email_verified: w.email_verified,
          approval_requested_at: w.approval_requested_at.toISOString(),
        })),
      };
    },
  },
  'workspace approve': {
    usage: `  workspace approve --workspace W           approve one: its owner can sign in (once their address is verified)`,
    run: async ({ db, flags }) => {
      const workspaceId = stringFlag(flags, 'workspace', true);
      const approved = await approveWorkspace({ db, now: () => new Date() }, workspaceId);
      if (!approved.ok) throw new CliError('not_found', 'no workspace with this id is awaiting approval');
      return { workspace_id: workspaceId, approved: true };
    },
  },
  'user add': {
    usage: `  user add --workspace W --email E --role owner|admin|member`,
    run: async ({ db, flags }) => {
      const role = stringFlag(flags, 'role', true);
      if (!isRole(role)) throw new CliError('invalid_argument', '--role must be owner, admin or member');
      const owner = await resolveUser(db, { workspace: flags.workspace });
      const user = await addUser(db, { workspaceId: owner.workspace_id, email: stringFlag(flags, 'email', true), role });
      return { user_id: user.id, workspace_id: user.workspace_id, email: user.email, role: user.role };
    },
  },
  'member invite': {
    usage: `  member invite --workspace W --email E --role owner|admin|member
                                            an invitation link (7 days, single use) with which the
                                            person sets a password in the portal; printed once`,
    run: async ({ db, flags, config }) => {
      const role = stringFlag(flags, 'role', true);
      if (!isRole(role)) throw new CliError('invalid_argument', '--role must be owner, admin or member');
      // The CLI acts as the workspace's owner, as `user add` does.
      const owner = await resolveUser(db, { workspace: flags.workspace });
      const outcome = await inviteMember(
        { db, config, now: () => new Date() },
        { inviter: owner, email: stringFlag(flags, 'email', true), role },
      );
      if (!outcome.ok) {
        if (outcome.refused === 'email_taken') throw new CliError('email_taken', 'this email address already belongs to a user');
        if (outcome.refused === 'invalid_fields') throw new CliError('invalid_argument', '--email must be an email address');
        throw new CliError('forbidden', 'the workspace owner cannot invite with this role');
      }
      const { id, email, expires_at } = outcome.invitation;
      return { invitation_id: id, workspace_id: owner.workspace_id, email, role, expires_at: expires_at.toISOString(), link: outcome.link };
    },
  },
  'key create': {
    usage: `  key create --workspace W --env test|live [--user U] [--name N] [--scopes a,b]`,
    run: (context) => createKey(context, 'standard'),
  },
  'service-key create': {
    usage: `  service-key create --workspace W --env test|live [--user U] [--name N]`,
    run: (context) => createKey(context, 'service'),
  },
  'service-key revoke': {
    usage: `  service-key revoke --workspace W --id KEY_ID
                                            revoke it and the agent keys it minted`,
    run: async ({ db, flags }) => {
      const user = await resolveUser(db, flags);
      const id = stringFlag(flags, 'id', true);
      const outcome = await revokeServiceKey(db, { workspaceId: user.workspace_id, keyId: id, via: 'cli', now: new Date() });
      if (!outcome.ok) throw new CliError('not_found', `service key ${id} not found in workspace ${user.workspace_id}`);
      const { row, descendants } = outcome;
      return { id, key_prefix: row.key_prefix, revoked_at: row.revoked_at!.toISOString(), revoked_agent_keys: descendants.length };
    },
  },
  'payment-method add': {
    usage: `  payment-method add --workspace W --card NUMBER --exp MM/YY [--env test|live] [--user U] [--default]
                                            save a card for one environment (default live); only
                                            a test card is ever charged for test usage
  payment-method add --workspace W --stripe-payment-method pm_… [--env test|live] [--user U] [--default]
                                            the same where the environment charges through Stripe:
                                            the card was saved on Stripe (SetupIntent, customer)`,
    run: async ({ db, flags, temporal, config }) => {
      const user = await resolveUser(db, flags);
      // A card belongs to one environment; without --env it is a live (real-money) card.
      const environment = flags.env === undefined ? 'live' : envOf(flags);
      const outcome = await addPaymentMethod(
        { db, now: () => new Date() },
        cardVaultsFor(config)[environment],
        { workspaceId: user.workspace_id, userId: user.id, environment },
        cardEntryOf(flags),
        flags.default === true,
      );
      if (!outcome.ok) throw new CliError(outcome.refused === 'card_declined' ? 'card_declined' : 'invalid_argument', outcome.message);
      const { saved } = outcome;
      // An auto-charge stopped by a decline tries the new card now (stderr logs say so when Temporal cannot be told).
      const log = createLogger('cli', process.env.LOG_LEVEL ?? 'warn', process.stderr);
      const autoCharge = temporal
        ? await Promise.resolve()
            .then(() => temporal.get())
            .then(
              (client) =>
                autoChargeArea().wakeAutoChargeForNewCard(
                  { db, temporal: client, taskQueue: config.taskQueue, log },
                  { workspaceId: user.workspace_id, environment },
                ),
              (err: unknown) => (log.warn({ err }, 'auto-charge not told of the new card: Temporal unreachable'), 'failed' as const),
            )
        : 'nothing';
      return {
        auto_charge: autoCharge,
        id: saved.id,
        brand: saved.brand,
        last4: saved.last4,
        environment: saved.environment,
        is_default: saved.is_default,
        user_id: user.id,
      };
    },
  },
  'opt-out add': {
    usage: `  opt-out add|remove --workspace W --env test|live --number E164
                                            stop (or allow again) calls and SMS to a number`,
    run: (context) => changeOptOut(context, true),
  },
  'opt-out remove': {
    usage: null,
    run: (context) => changeOptOut(context, false),
  },
  'opt-out list': {
    usage: `  opt-out list --workspace W --env test|live`,
    run: async ({ db, flags }) => {
      const user = await resolveUser(db, flags);
      const environment = envOf(flags);
      const rows = await optOutsOf(db, { workspaceId: user.workspace_id, environment }).orderBy('opted_out_at', 'desc');
      return {
        opt_outs: rows.map((r) => ({ phone_number: r.phone_number, source: r.source, opted_out_at: r.opted_out_at.toISOString() })),
      };
    },
  },
  'number grant': {
    usage: `  number grant|revoke --workspace W --env test|live --number E164
                                            let a workspace import one of the carrier account's own
                                            numbers (POST /lines with phone_number), or stop it`,
    run: async ({ db, flags }) => {
      const tenant = { workspaceId: (await resolveUser(db, flags)).workspace_id, environment: envOf(flags) };
      const outcome = await grantNumber(db, tenant, stringFlag(flags, 'number', true), new Date());
      if (!outcome.ok && outcome.refused === 'invalid_number') throw new CliError('invalid_argument', `--number: ${outcome.message}`);
      if (!outcome.ok)
        throw new CliError('conflict', 'this number is granted to another workspace in this environment; revoke it there first');
      return { phone_number: outcome.grant.phone_number, environment: tenant.environment, workspace_id: tenant.workspaceId, granted: true };
    },
  },
  'number revoke': {
    usage: null,
    run: async ({ db, flags }) => {
      const tenant = { workspaceId: (await resolveUser(db, flags)).workspace_id, environment: envOf(flags) };
      const phoneNumber = stringFlag(flags, 'number', true);
      if (!(await revokeNumberGrant(db, tenant, phoneNumber)))
        throw new CliError('not_found', `${phoneNumber} is not granted to this workspace`);
      return { phone_number: phoneNumber, environment: tenant.environment, workspace_id: tenant.workspaceId, granted: false };
    },
  },
  'number list': {
    usage: `  number list --workspace W --env test|live`,
    run: async ({ db, flags }) => {
      const tenant = { workspaceId: (await resolveUser(db, flags)).workspace_id, environment: envOf(flags) };
      const grants = await numberGrantsOfTenant(db, tenant);
      return { numbers: grants.map((g) => ({ phone_number: g.phone_number, granted_at: g.created_at.toISOString() })) };
    },
  },
  'history export': {
    usage: `  history export ID [--out FILE]            write a workflow's Temporal history as JSON, its payloads
                                            decrypted (TEMPORAL_PAYLOAD_KEY); ID is a workflow id,
                                            or a call/line/event id (prefixes tried)`,
    run: async ({ args, flags, temporal }) => {
      if (temporal) return historyExport(temporal, args, flags);
      const own = new LazyTemporal();
      try {
        return await historyExport(own, args, flags);
      } finally {
        await own.close();
      }
    },
  },
  'history replay': {
    usage: `  history replay FILE                       replay an exported history (decrypted, or encrypted as the
                                            server keeps it) against the current workflow code; exit 1
                                            with the determinism error if it diverges`,
    run: async ({ args }) => {
      return historyReplay(args);
    },
  },
  'secrets reseal': {
    usage: `  secrets reseal                            re-seal every stored secret with the first key of
                                            SECRETS_KEY (after adding a new key in front of the old)`,
    run: async ({ db }) => {
      // Key rotation: SECRETS_KEY=<new>,<old> here and in every process, reseal, then drop <old>.
      const ring = parseSecretsKey(requireSetting(loadConfig().secretsKey, 'SECRETS_KEY'));
      const { resealed, alreadyCurrent } = await resealSecrets(db, ring);
      return { key_id: ring.current.id, resealed, already_current: alreadyCurrent };
    },
  },
} satisfies Record<string, CommandDefinition>;

export type CliCommand = keyof typeof COMMANDS;

export const CLI_COMMANDS = Object.keys(COMMANDS) as CliCommand[];

function isCliCommand(command: string | undefined): command is CliCommand {
  return command !== undefined && Object.hasOwn(COMMANDS, command);
}

export const USAGE = `Usage: npm run --silent cli -- <command> [options]

Commands:
${Object.values(COMMANDS)
  .flatMap((command) => (command.usage === null ? [] : [command.usage]))
  .join('\n')}

Every command accepts --json for machine-readable output.`;

/**
 * Runs one command. `temporal` is the client for the history commands; when none is passed,
 * one is created for this command and closed after it.
 */
export async function runCommand(
  db: Db,
  args: string[],
  flags: Flags,
  temporal?: LazyTemporal,
  /** The processes' configuration; read from the environment when not given. */
  config: Config = loadConfig(),
): Promise<Record<string, unknown>> {
  const [group, action] = args;
  const command = action ? `${group} ${action}` : group;
  if (!isCliCommand(command)) throw new CliError('unknown_command', command ? `unknown command "${command}"\n\n${USAGE}` : USAGE);
  return COMMANDS[command].run({ db, args, flags, temporal, config });
}

function printHuman(result: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(result)) console.log(`${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean' },
      default: { type: 'boolean' },
      help: { type: 'boolean' },
      name: { type: 'string' },
      email: { type: 'string' },
      'owner-email': { type: 'string' },
      workspace: { type: 'string' },
      user: { type: 'string' },
      env: { type: 'string' },
      scopes: { type: 'string' },
      role: { type: 'string' },
      card: { type: 'string' },
      exp: { type: 'string' },
      'stripe-payment-method': { type: 'string' },
      id: { type: 'string' },
      number: { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return 0;
  }
  const config = loadConfig();
  try {
    assertStartupConfiguration('cli', config, PROVIDER_SETTINGS);
  } catch (err) {
    if (!(err instanceof ConfigurationError)) throw err;
    if (values.json) console.log(JSON.stringify({ error: { code: 'configuration', message: err.message } }));
    else console.error(`error: ${err.message}`);
    return 1;
  }
  const db = createDb(requireSetting(config.databaseUrl, 'DATABASE_URL'), { max: 2 });
  const temporal = new LazyTemporal();
  try {
    const result = await runCommand(db, positionals, values, temporal, config);
    if (values.json) console.log(JSON.stringify(result));
    else printHuman(result);
    return 0;
  } catch (err) {
    const code = err instanceof CliError ? err.code : 'error';
    const message = err instanceof CliError ? err.message : (err as Error).message;
    const details = err instanceof CliError ? err.details : {};
    if (values.json) console.log(JSON.stringify({ ...details, error: { code, message } }));
    else console.error(`error: ${message}`);
    return 1;
  } finally {
    await temporal.close();
    await db.destroy();
  }
}

if (require.main === module) {
  main()
    .then((code) => process.exit(code))
    .catch((err) => {
      console.error(`error: ${(err as Error).message}`);
      process.exit(1);
    });
}
