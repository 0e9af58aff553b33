import type { UseCaseDeps } from '../useCaseDeps';
import { isLanguagePinningRefused, lineFieldProblems, lineUpdateChanges, type LineFieldProblem, type LineUpdate } from './rules';
import { findLine, updateLine, type LineRow, type Tenant } from './store';
import { unreachableUrlProblems } from './urls';
import { toolDeclarationProblems } from '../tools/declarations';
import type { ToolDeclaration } from '../tools/declarations';
import { toolsColumn } from '../tools/store';

export type LineUpdateOutcome =
  | { ok: true; line: LineRow }
  | { ok: false; refused: 'not_found' | 'released' | 'language_pinning' }
  | { ok: false; refused: 'invalid_fields'; problems: LineFieldProblem[] };

/**
 * Changes a line that is not released. The result is judged whole: the mode's required field
 * (a webhook line may lose its URL when its mode stays), the language pin on the effective mode,
 * and the URLs this update sets.
 */
export async function updateLineSettings(
  deps: UseCaseDeps,
  tenant: Tenant,
  lineId: string,
  update: LineUpdate,
): Promise<LineUpdateOutcome> {
  const row = await findLine(deps.db, tenant, lineId);
  if (!row) return { ok: false, refused: 'not_found' };
  if (row.status === 'released') return { ok: false, refused: 'released' };
  const changes = lineUpdateChanges(row, update);
  const merged = { ...row, ...changes } as LineRow;
  const problems = lineFieldProblems(merged, { webhookUrlOptional: merged.mode === row.mode });
  if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  if (isLanguagePinningRefused(merged.mode, update.language)) return { ok: false, refused: 'language_pinning' };
  const tools = update.tools as ToolDeclaration[] | null | undefined;
  const unreachable = [
    ...(await unreachableUrlProblems(deps.config, tenant.environment, update)),
    ...(await toolDeclarationProblems(deps.config, tenant.environment, tools)),
  ];
  if (unreachable.length > 0) return { ok: false, refused: 'invalid_fields', problems: unreachable };
  if ('tools' in changes) changes.tools = toolsColumn(tools);
  return { ok: true, line: await updateLine(deps.db, row.id, changes, deps.now()) };
}
