import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { endActiveCall } from '../../src/domain/calls/hangup';
import { isActiveCallStatus } from '../../src/domain/calls/rules';
import type { CallRow } from '../../src/domain/calls/store';
import { changed } from './answer';
import { callOf } from './callRoutes';
import { envFields, stateBadge, stateLabel, time, type ConfirmationView } from './components';
import { confirmedAction } from './confirm';
import { html } from './html';
import { navOf } from './operatorPages';

const CALLS = '/portal/calls';

/** Hanging up a call: who is cut off, and what stays; or, once it has ended, how it ended. */
function hangUpView(call: CallRow, nav: { csrfToken: string; environment: 'test' | 'live' }): ConfirmationView {
  const callPath = `${CALLS}/${call.id}?env=${nav.environment}`;
  const base = {
    title: `Hang up the call to ${call.to_number}?`,
    action: `${CALLS}/${call.id}/hangup`,
    hidden: envFields(nav),
    confirmLabel: 'Hang up',
    back: { href: callPath, label: 'back to the call' },
  };
  if (!isActiveCallStatus(call.status))
    return {
      ...base,
      consequences: [],
      stale: {
        message: 'This call has already ended.',
        state: html`<p id="current-state">
          Status ${stateBadge(call.status)}${call.end_cause ? html`, ended because: ${stateLabel(call.end_cause)}` : ''}, ended
          ${time(call.ended_at, 'second')}${call.duration_sec === null ? '' : `, ${call.duration_sec} s`}.
          <a href="${callPath}">See the call</a>.
        </p>`,
      },
    };
  return {
    ...base,
    consequences: [
      html`The ${stateLabel(call.status).toLowerCase()} ${stateLabel(call.direction).toLowerCase()} call between
        <span class="mono">${call.from_number}</span> and <span class="mono">${call.to_number}</span> ends now for both parties (recorded as
        ${stateLabel('api_hangup').toLowerCase()}).`,
      'It is billed for the seconds so far; its transcript, recording and deliveries stay on its page.',
    ],
  };
}

/** Hanging up from the call's page, as POST /api/v1/calls/{id}/hangup does (its scope, calls:control), behind its confirmation. */
export function callActions(router: Router<AppState>, deps: AppDeps): void {
  confirmedAction(router, deps, {
    path: `${CALLS}/:id/hangup`,
    navPath: CALLS,
    scope: 'calls:control',
    refusal: 'Your role cannot hang up calls',
    rateLimit: 'calls.control',
    staleCode: 'call_not_active',
    describe: async (ctx, operator) => hangUpView(await callOf(deps, operator, ctx.params.id), navOf(operator, CALLS)),
    // No pageAgain: an unknown call (or another workspace's) is the portal's 404 `call_not_found`, as on the call's page.
    act: async (ctx, operator) => {
      const row = await callOf(deps, operator, ctx.params.id);
      await endActiveCall(deps.temporal, deps.config.taskQueue, row.id);
      ctx.state.log.info({ call_id: row.id, user_id: operator.user.id }, 'portal call hung up');
      changed(ctx, `${CALLS}/${row.id}?env=${operator.environment}`, 202, { call_id: row.id });
    },
  });
}
