import type { Db } from '../../platform/db/knex';
import type { ToolDeclaration } from './declarations';

/** A declaration list as a jsonb column takes it (node-postgres would send a JS array as a Postgres array); null for none. */
export function toolsColumn(tools: readonly ToolDeclaration[] | null | undefined): string | null {
  return tools && tools.length > 0 ? JSON.stringify(tools) : null;
}

/** The tools a call was placed or answered with (its own copy: the line may change mid-call). */
export async function callTools(db: Db, callId: string): Promise<ToolDeclaration[]> {
  const row = await db('calls').where({ id: callId }).first('tools');
  return (row?.tools as ToolDeclaration[] | null | undefined) ?? [];
}
