import { chargeableCard } from '../billing/paymentMethods';
import { CARRIER_ERROR, type CarrierRefusal } from '../carriers/rules';
import type { Environment } from '../keys/format';
import type { UseCaseDeps } from '../useCaseDeps';
import type { Logger } from '../../platform/logger';
import { StartCompensatedError, startOrCompensate } from '../../platform/temporal/starts';
import { waitForResult } from '../../platform/temporal/waitForResult';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { provisionLineWorkflow } from '../../../workflows/lines';
import {
  DEFAULT_LANGUAGE,
  FIRST_LINE_GRACE_DAYS,
  isLanguagePinningRefused,
  lineFieldProblems,
  normalizeMode,
  normalizeVoice,
  type LineFieldProblem,
} from './rules';
import {
  chooseNumber,
  NUMBER_UNAVAILABLE,
  numberUnavailableMessage,
  type NumberChoice,
  type NumberChoiceRequest,
  type NumberCriterion,
} from './numberChoice';
import { mayImportNumber } from './numberGrants';
import { createCurrentSecret, sealingKeyOf } from './secrets';
import { countLinesOfWorkspace, discardRefusedLine, failProvisioning, findLine, insertLine, lockLineCreation, type LineRow } from './store';
import { unreachableUrlProblems } from './urls';
import { toolDeclarationProblems } from '../tools/declarations';
import type { ToolDeclaration } from '../tools/declarations';
import { toolsColumn } from '../tools/store';

/** The fields a customer chooses for a new line (wire names, as stored), and how its number is chosen. */
export interface LineRequest extends NumberChoiceRequest {
  name: string;
  mode: string;
  display_name?: string | null;
  system_prompt?: string | null;
  begin_message?: string | null;
  voice?: string | null;
  context_limit?: number | null;
  webhook_url?: string | null;
  audio_handler_url?: string | null;
  status_callback_url?: string | null;
  recording_enabled?: boolean;
  compliance_enabled?: boolean;
  language?: string;
  endpointing_ms?: number | null;
  tools?: ToolDeclaration[] | null;
}

/** Who creates the line: its workspace, user and environment, and the key that pays for its number. */
export interface LineCreator {
  workspaceId: string;
  userId: string;
  environment: Environment;
  /** Null for a line an operator creates in the portal: its number's fees are the workspace's, no key's. */
  keyId: string | null;
}

export type ProvisionOutcome =
  | { ok: true; line: LineRow; webhookSecret: string }
  | { ok: false; refused: 'invalid_fields'; problems: LineFieldProblem[] }
  | { ok: false; refused: 'language_pinning' }
  | { ok: false; refused: 'payment_method_required' }
  | { ok: false; refused: 'not_started' }
  | { ok: false; refused: typeof NUMBER_UNAVAILABLE; field: NumberCriterion; message: string }
  | { ok: false; refused: typeof CARRIER_ERROR; refusal: CarrierRefusal };

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a line and provisions its number (spec "Line"): the line and its first signing secret
 * are recorded, then the provisioning workflow starts (a line whose workflow cannot start is
 * released again). The first line of each workspace in each environment is free for 30 days; a
 * further live line needs a default payment method in the workspace (issue 27, H5). Most numbers are ready within a second: the line is returned
 * active when provisioning finishes within `lineProvisionWaitMs`, else still `provisioning`.
 */
export async function provisionLine(deps: UseCaseDeps, log: Logger, creator: LineCreator, request: LineRequest): Promise<ProvisionOutcome> {
  const mode = normalizeMode(request.mode);
  const voice = normalizeVoice(request.voice);
  const number = chooseNumber(request);
  const problems = [...lineFieldProblems({ ...request, mode, voice }), ...(number.ok ? [] : number.problems)];
  if (problems.length > 0 || !number.ok) return { ok: false, refused: 'invalid_fields', problems };
  if (isLanguagePinningRefused(mode, request.language)) return { ok: false, refused: 'language_pinning' };
  const unreachable = [
    ...(await unreachableUrlProblems(deps.config, creator.environment, request)),
    ...(await toolDeclarationProblems(deps.config, creator.environment, request.tools)),
  ];
  if (unreachable.length > 0) return { ok: false, refused: 'invalid_fields', problems: unreachable };
  const { choice } = number;
  const unavailable = (field: NumberCriterion): ProvisionOutcome => ({
    ok: false,
    refused: NUMBER_UNAVAILABLE,
    field,
    message: numberUnavailableMessage(choice, field),
  });

  const now = deps.now();
  const recorded = await deps.db.transaction(async (trx) => {
    const tenant = { workspaceId: creator.workspaceId, environment: creator.environment };
    await lockLineCreation(trx, tenant);
    if (choice.source === 'imported' && !(await mayImportNumber(trx, creator, choice.phoneNumber))) return 'not_importable' as const;
    const isFirstLine = (await countLinesOfWorkspace(trx, tenant)) === 0;
    // Any member's verified default live card serves the workspace, as auto-charge uses it (paymentMethods.ts).
    if (creator.environment === 'live' && !isFirstLine && !(await chargeableCard(trx, tenant))) return 'payment_method_required' as const;
    const line = await insertLine(trx, {
      workspace_id: creator.workspaceId,
      user_id: creator.userId,
      environment: creator.environment,
      name: request.name,
      display_name: request.display_name ?? null,
      mode,
      system_prompt: request.system_prompt ?? null,
      begin_message: request.begin_message ?? null,
      voice: voice ?? null,
      context_limit: request.context_limit ?? null,
      webhook_url: request.webhook_url ?? null,
      audio_handler_url: request.audio_handler_url ?? null,
      status_callback_url: request.status_callback_url ?? null,
      recording_enabled: request.recording_enabled ?? false,
      compliance_enabled: request.compliance_enabled ?? false,
      language: request.language ?? DEFAULT_LANGUAGE,
      endpointing_ms: request.endpointing_ms ?? null,
      tools: toolsColumn(request.tools),
      ...numberColumns(choice),
      status: 'provisioning',
      // The workspace's first line of each environment is free for 30 days: test bills as live does.
      grace_ends_at: isFirstLine ? new Date(now.getTime() + FIRST_LINE_GRACE_DAYS * DAY_MS) : null,
      created_by_key_id: creator.keyId,
      created_at: now,
      updated_at: now,
    });
    return { line, webhookSecret: await createCurrentSecret(trx, sealingKeyOf(deps.config), line.id, now) };
  });
  if (recorded === 'payment_method_required') return { ok: false, refused: 'payment_method_required' };
  // The same answer whether another workspace holds it, the operator never granted it, or it does not exist.
  if (recorded === 'not_importable') return unavailable('phone_number');
  const { line, webhookSecret } = recorded;

  const workflowId = workflowIds.provisionLine(line.id);
  try {
    await startOrCompensate<typeof provisionLineWorkflow>(
      deps.temporal,
      'provisionLineWorkflow',
      { taskQueue: deps.config.taskQueue, workflowId, args: [{ lineId: line.id }] },
      async (outcome) => {
        log.error({ outcome, line_id: line.id }, 'could not start line provisioning');
        await failProvisioning(deps.db, line.id, 'provisioning could not start', deps.now());
        return true;
      },
    );
  } catch (err) {
    if (err instanceof StartCompensatedError) return { ok: false, refused: 'not_started' };
    throw err;
  }
  log.info({ line_id: line.id, mode, number: choice }, 'line created; provisioning its number');
  // A slow carrier leaves the line `provisioning`: the workflow carries on by itself.
  const waited = await waitForResult(
    deps.temporal,
    deps.temporal.workflow.getHandle<typeof provisionLineWorkflow>(workflowId),
    deps.config.lineProvisionWaitMs,
  ).catch(() => undefined);
  const released = waited?.finished && waited.result.status === 'released' ? waited.result : undefined;
  // The carrier refused while the customer waits: a refusal, and nothing of the line remains.
  if (released?.unavailable && (await discardRefusedLine(deps.db, line.id))) {
    log.info({ line_id: line.id, field: released.unavailable }, 'no number matched the request; the line is discarded');
    return unavailable(released.unavailable);
  }
  if (released?.refusal && (await discardRefusedLine(deps.db, line.id))) {
    // The carrier's own words are for the operator (the reason); the customer gets the provider and its code.
    log.warn(
      { line_id: line.id, refusal: released.refusal, reason: released.reason },
      'the carrier refused the number; the line is discarded',
    );
    return { ok: false, refused: CARRIER_ERROR, refusal: released.refusal };
  }
  return { ok: true, line: (await findLine(deps.db, creator, line.id)) ?? line, webhookSecret };
}

/** The line's columns that record how its number is chosen (provisioning reads them). */
function numberColumns(choice: NumberChoice) {
  return {
    number_country: choice.country,
    number_type: choice.numberType,
    area_code: choice.source === 'purchased' ? choice.areaCode : null,
    number_source: choice.source,
    import_number: choice.source === 'imported' ? choice.phoneNumber : null,
  };
}
