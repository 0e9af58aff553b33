import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { lineReleaseError, secretRotationError } from '../lineErrors';
import { activeCallIdsOfLine } from '../../src/domain/calls/store';
import { releaseLine } from '../../src/domain/lines/release';
import { rotateLineSecret } from '../../src/domain/lines/rotateSecret';
import { PROMOTION_DELAY_MS } from '../../src/domain/lines/rules';
import { signedDeliveriesOf, stagedSecretTimes } from '../../src/domain/lines/secrets';
import { toLineRecord, type LineRow } from '../../src/domain/lines/store';
import { envFields, time, type ConfirmationView } from './components';
import { changed } from './answer';
import { confirmedAction } from './confirm';
import { lineOf } from './lineRoutes';
import { html } from './html';
import { sendPage } from './http';
import { navOf, tenantOf } from './operatorPages';
import { linesPage } from './pages/lines';
import type { Operator } from './visitor';
import { defaultWebhookUrlOf, linesInput } from './workspaceRoutes';

const LINES = '/portal/lines';

/** A released line's state, as a stale confirmation shows it. */
const releasedState = (line: LineRow) =>
  html`<p id="current-state">
    <a href="${LINES}/${line.id}?env=${line.environment}">${line.name}</a> (<span class="mono">${line.phone_number ?? 'no number'}</span>)
    is released since ${time(line.released_at)}.
  </p>`;

/** The lines list again, showing an error that came before a confirmation (an unknown line, a role). */
const linesAgain = (deps: AppDeps) => async (operator: Operator) => {
  const input = await linesInput(deps, operator);
  return (shown: Parameters<typeof linesPage>[1]['error']) => linesPage(navOf(operator, LINES), { ...input, error: shown });
};

/**
 * Rotating a signing secret says which of the two secrets will sign, from when: nothing staged (the new one is staged
 * beside the signing one), a staged one old enough (it takes over, the signing one retires), or one too young (stale:
 * nothing to do until it may be promoted).
 */
async function rotationView(deps: AppDeps, operator: Operator, line: LineRow): Promise<ConfirmationView> {
  const now = deps.now();
  const stagedAt = (await stagedSecretTimes(deps.db, [line.id])).get(line.id);
  const nextPromotable = new Date(now.getTime() + PROMOTION_DELAY_MS);
  const signs = signedDeliveriesOf(line, await defaultWebhookUrlOf(deps, operator));
  const base = {
    title: `Rotate the signing secret of ${line.name}?`,
    action: `${LINES}/${line.id}/rotate-secret`,
    hidden: envFields(navOf(operator, LINES)),
    confirmLabel: stagedAt ? 'Promote the staged secret' : 'Stage a new secret',
    back: { href: `${LINES}?env=${operator.environment}`, label: 'back to the lines' },
  };
  const signing = signs.length ? `It signs this line's ${signs.join(', ')}.` : 'Nothing this line sends is signed yet.';
  if (line.status === 'released')
    return {
      ...base,
      consequences: [],
      stale: { message: 'This line is released: its secrets sign nothing any more.', state: releasedState(line) },
    };
  if (!stagedAt)
    return {
      ...base,
      consequences: [
        signing,
        html`A new secret is staged now and shown once. The current secret keeps signing: make your receivers accept both.`,
        html`From ${time(nextPromotable)} (24 hours later), rotating again makes the new secret the signing one and retires the current one.`,
      ],
    };
  const promotableAt = new Date(stagedAt.getTime() + PROMOTION_DELAY_MS);
  if (promotableAt > now)
    return {
      ...base,
      consequences: [],
      stale: {
        message: 'A new secret is already staged; it can be promoted 24 hours after it was staged.',
        state: html`<p id="current-state">
          Staged ${time(stagedAt)}; promotable from ${time(promotableAt)}. Until then the current secret signs, and receivers should accept
          both.
        </p>`,
      },
    };
  return {
    ...base,
    consequences: [
      signing,
      html`The secret staged ${time(stagedAt)} becomes the signing one now; the current one is retired: a receiver that still accepts only
      it will refuse every delivery.`,
      html`A fresh secret is staged and shown once; it can be promoted from ${time(nextPromotable)}.`,
    ],
  };
}

async function releaseView(deps: AppDeps, operator: Operator, line: LineRow): Promise<ConfirmationView> {
  const base = {
    title: `Release the line ${line.name}?`,
    action: `${LINES}/${line.id}/release`,
    hidden: envFields(navOf(operator, LINES)),
    confirmLabel: 'Release line',
    back: { href: `${LINES}/${line.id}?env=${operator.environment}`, label: 'back to the line' },
  };
  if (line.status === 'released')
    return { ...base, consequences: [], stale: { message: 'This line is already released.', state: releasedState(line) } };
  const active = await activeCallIdsOfLine(deps.db, line.id);
  const number = line.phone_number ?? 'its number (not yet provisioned)';
  return {
    ...base,
    consequences: [
      line.number_source === 'imported'
        ? html`<span class="mono">${number}</span> stops ringing here; it stays in your carrier account.`
        : html`<span class="mono">${number}</span> is given back to the carrier: this line cannot get it back.`,
      active.length
        ? `The call in progress on it (${active.length}) is hung up now.`
        : 'No call is in progress on it; new calls and messages to it are refused.',
      'Its calls, messages, recordings and deliveries stay readable here. A release cannot be undone.',
    ],
  };
}

/** A line's destructive actions, each behind its confirmation step (./confirm.ts): rotating its secret, releasing it. */
export function lineActions(router: Router<AppState>, deps: AppDeps): void {
  confirmedAction(router, deps, {
    path: `${LINES}/:id/rotate-secret`,
    navPath: LINES,
    scope: 'webhooks:write',
    refusal: 'Your role cannot rotate signing secrets',
    rateLimit: 'lines.secret_rotate',
    staleCode: 'secret_rotation_too_soon',
    describe: async (ctx, operator) => rotationView(deps, operator, await lineOf(deps, operator, ctx.params.id)),
    pageAgain: linesAgain(deps),
    act: async (ctx: AppContext, operator) => {
      const outcome = await rotateLineSecret(deps, ctx.state.log, tenantOf(operator), ctx.params.id);
      if (!outcome.ok) throw secretRotationError(outcome);
      const { rotatedAt, promotedPreviousNext } = outcome.rotation;
      const input = await linesInput(deps, operator);
      const line = await lineOf(deps, operator, ctx.params.id);
      const promotableAt = new Date(Date.parse(rotatedAt) + PROMOTION_DELAY_MS).toISOString();
      ctx.state.log.info({ line_id: line.id, promoted: promotedPreviousNext, user_id: operator.user.id }, 'portal secret rotated');
      // The secret is shown on this answer alone: no redirect, nothing in a URL.
      sendPage(
        ctx,
        200,
        linesPage(navOf(operator, LINES), {
          ...input,
          secret: {
            lineName: line.name,
            secret: outcome.webhookSecret,
            signs: input.secrets.get(line.id)?.signs ?? [],
            rotation: { promoted: promotedPreviousNext, stagedAt: rotatedAt, promotableAt },
          },
        }),
      );
    },
  });

  confirmedAction(router, deps, {
    path: `${LINES}/:id/release`,
    navPath: LINES,
    scope: 'numbers:release',
    refusal: 'Your role cannot release lines',
    rateLimit: 'lines.delete',
    staleCode: 'line_released',
    describe: async (ctx, operator) => releaseView(deps, operator, await lineOf(deps, operator, ctx.params.id)),
    pageAgain: linesAgain(deps),
    act: async (ctx, operator) => {
      const outcome = await releaseLine(deps, ctx.state.log, tenantOf(operator), ctx.params.id);
      if (!outcome.ok) throw lineReleaseError(outcome);
      ctx.state.log.info({ line_id: outcome.line.id, user_id: operator.user.id }, 'portal line released');
      changed(ctx, `${LINES}/${outcome.line.id}?env=${operator.environment}&released=1`, 200, { line: toLineRecord(outcome.line) });
    },
  });
}
