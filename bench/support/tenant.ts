/** The customer a benchmark acts as, set up straight in the database (no API calls, no carrier, no worker). */
import crypto from 'node:crypto';
import type { Db } from '../../src/platform/db/knex';
import { createWorkspace, type User, type Workspace } from '../../src/domain/workspaces/service';

/** A fresh workspace and its owner, named uniquely so that runs against a kept database do not collide. */
export async function createBenchWorkspace(db: Db): Promise<{ workspace: Workspace; owner: User }> {
  const suffix = crypto.randomBytes(6).toString('hex');
  return createWorkspace(db, { name: `Bench ${suffix}`, ownerEmail: `bench+${suffix}@example.test` });
}

/** An active webhook line in the test environment, inserted directly; resolves to its id. */
export async function insertActiveLine(
  db: Db,
  input: { workspace: Workspace; owner: User; webhookUrl: string; phoneNumber?: string },
): Promise<string> {
  const [line] = await db('lines')
    .insert({
      workspace_id: input.workspace.id,
      user_id: input.owner.id,
      environment: 'test',
      name: 'Bench line',
      mode: 'webhook',
      webhook_url: input.webhookUrl,
      phone_number: input.phoneNumber ?? '+15005550100',
      status: 'active',
      activated_at: new Date(),
    })
    .returning<{ id: string }[]>('id');
  return line.id;
}
