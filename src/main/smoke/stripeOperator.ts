import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { wakeAutoCharge } from '../../domain/billing/autoCharge';
import { findAttempt } from '../../domain/billing/paymentAttempts';
import { loadConfig, type Config } from '../../platform/config';
import { createDb, type Db } from '../../platform/db/knex';
import { PROVIDER_SETTINGS } from '../../adapters/settings';
import { assertStartupConfiguration, ConfigurationError } from '../../platform/startupCheck';
import { connectDeploymentTemporal } from '../../platform/temporal/client';
import { runCommand } from '../cli';

/**
 * The operator's side of the Stripe run: what only the operator can do, done the way the operator
 * does it, with the deployment's own settings (so the kit runs where the CLI runs, e.g.
 * `docker compose exec worker npm run smoke -- stripe`):
 * - `workspace create`, `key create --env test` and `payment-method add --stripe-payment-method`
 *   of the operator CLI (README, "Connect a real card processor": cards are saved on Stripe, then
 *   handed to Switchboard by PaymentMethod id; there is no API for it);
 * - waking the workspace's auto-charge as a settlement under the threshold does (Switchboard spends
 *   only on calls and SMS, which would need a carrier in the test environment);
 * - reading the auto-charge attempt a PaymentIntent belongs to (a decline has no API of its own).
 */
export class Operator {
  private constructor(
    readonly config: Config,
    private readonly db: Db,
    private readonly temporal: Client,
  ) {}

  /** The deployment's settings as the CLI would read them, and its database and Temporal; refusals when they are not there. */
  static async open(env: NodeJS.ProcessEnv): Promise<Operator | string[]> {
    const config = loadConfig(env);
    try {
      assertStartupConfiguration('cli', config, PROVIDER_SETTINGS);
    } catch (err) {
      if (err instanceof ConfigurationError)
        return [`the deployment's settings are incomplete here (run the kit with the worker's settings): ${err.message}`];
      throw err;
    }
    if (config.paymentsProviders.test !== 'stripe')
      return [
        "this deployment's test environment does not charge through Stripe: set PAYMENTS_TEST_PROVIDER=stripe (or PAYMENTS_PROVIDER) as on its worker",
      ];
    if (!config.databaseUrl || !config.temporalAddress || !config.temporalPayloadKey)
      return ["DATABASE_URL, TEMPORAL_ADDRESS and TEMPORAL_PAYLOAD_KEY of the deployment are needed (the worker's settings)"];
    const db = createDb(config.databaseUrl, { max: 2 });
    try {
      await db.raw('select 1');
      const temporal = await connectDeploymentTemporal(config);
      return new Operator(config, db, temporal);
    } catch (err) {
      await db.destroy();
      return [`the deployment's database or Temporal cannot be reached: ${(err as Error).message}`];
    }
  }

  private async cli(args: string[], flags: Record<string, string | boolean>): Promise<Record<string, unknown>> {
    return runCommand(this.db, args, flags, undefined, this.config);
  }

  /** A throwaway workspace and a test key of its owner (auto-charge after a decline waits a day per workspace). */
  async workspace(label: string): Promise<{ workspaceId: string; apiKey: string }> {
    const suffix = crypto.randomBytes(4).toString('hex');
    const made = await this.cli(['workspace', 'create'], {
      name: `smoke stripe ${label} ${suffix}`,
      'owner-email': `smoke+${suffix}@switchboard.invalid`,
    });
    const workspaceId = String(made.workspace_id);
    const key = await this.cli(['key', 'create'], { workspace: workspaceId, env: 'test', name: 'switchboard smoke kit' });
    return { workspaceId, apiKey: String(key.key) };
  }

  /** `payment-method add --stripe-payment-method <pm> --env test --default`. */
  async saveCard(workspaceId: string, paymentMethodId: string): Promise<void> {
    await this.cli(['payment-method', 'add'], {
      workspace: workspaceId,
      'stripe-payment-method': paymentMethodId,
      env: 'test',
      default: true,
    });
  }

  async wake(workspaceId: string): Promise<void> {
    await wakeAutoCharge(this.temporal, this.config.taskQueue, { workspaceId, environment: 'test' });
  }

  /** The auto-charge attempt behind a Switchboard idempotency key (`auto-charge:<workspace>:<env>:<attempt id>`). */
  async attempt(workspaceId: string, idempotencyKey: string): Promise<{ status: string; declineCode: string | null } | undefined> {
    const attemptId = /:([0-9a-f-]{36})$/.exec(idempotencyKey)?.[1];
    if (!attemptId) return undefined;
    const row = (await findAttempt(this.db, { workspaceId, environment: 'test' }, attemptId)) as
      { status: string; decline_code?: string | null } | undefined;
    return row ? { status: row.status, declineCode: row.decline_code ?? null } : undefined;
  }

  async close(): Promise<void> {
    await this.temporal.connection.close().catch(() => undefined);
    await this.db.destroy();
  }
}
