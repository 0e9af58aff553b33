import type { Db } from '../../platform/db/knex';

/** The workspace's time zone (`workspaces.time_zone`, migration 0046); UTC when the workspace is gone. */
export async function workspaceTimeZone(db: Db, workspaceId: string): Promise<string> {
  const row = await db('workspaces').where({ id: workspaceId }).first('time_zone');
  return (row?.time_zone as string | undefined) ?? 'UTC';
}

export async function setWorkspaceTimeZone(db: Db, workspaceId: string, timeZone: string): Promise<void> {
  await db('workspaces').where({ id: workspaceId }).update({ time_zone: timeZone });
}
