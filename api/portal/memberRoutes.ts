import type Router from '@koa/router';
import type { AppContext, AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { acceptInvitation, pendingInvitation } from '../../src/domain/accounts/acceptInvitation';
import { inviteMember, mailInvitation } from '../../src/domain/accounts/inviteMember';
import { membersOf, pendingInvitationsOf } from '../../src/domain/accounts/store';
import { isRole } from '../../src/domain/keys/scopes';
import { changed, refuse } from './answer';
import { mailingDeps, startSession } from './accountRoutes';
import { assertCsrf, PRE_SESSION_CSRF_COOKIE, readCookie, readForm, sendPage } from './http';
import { MEMBERS_SCOPE, navOf, roleAllows, postOperatorForm, getOperatorPage } from './operatorPages';
import { acceptInvitationPage, membersPage, type MembersPageInput } from './pages/members';
import { preSessionToken, type Operator } from './visitor';

/** Unknown, used, revoked and expired links get this same answer: nothing tells them apart. */
const invitationInvalid = () =>
  new ApiError(
    404,
    'invitation_invalid',
    'This invitation link is not valid: it may have expired, been used or been revoked. Ask for a new one.',
  );
export const invalidRole = () => errors.validation([{ field: 'role', message: 'must be owner, admin or member' }]);
export const onlyOwners = () => errors.forbidden('Only an owner can make, demote or remove an owner');

/** Managing members needs MEMBERS_SCOPE (owners and admins), as the navigation offers it. */
function assertManager(operator: Operator): void {
  if (!roleAllows(operator, MEMBERS_SCOPE)) throw errors.forbidden('Your role cannot manage members');
}

export async function membersInput(deps: AppDeps, operator: Operator, extra: Partial<MembersPageInput> = {}): Promise<MembersPageInput> {
  const workspaceId = operator.user.workspace_id;
  const [members, invitations] = await Promise.all([
    membersOf(deps.db, workspaceId),
    pendingInvitationsOf(deps.db, workspaceId, deps.now()),
  ]);
  return { members, invitations, actorRole: operator.user.role, ...extra };
}

/** A refused members-page form: the page again with the error (and what `extra` adds), or the error envelope. */
async function refuseOnMembersPage(
  ctx: AppContext,
  deps: AppDeps,
  operator: Operator,
  error: ApiError,
  extra: Partial<MembersPageInput> = {},
): Promise<void> {
  const input = await membersInput(deps, operator, extra);
  refuse(ctx, error, (shown) => membersPage(navOf(operator, '/portal/members'), { ...input, error: shown }));
}

/** The members page (invite) and the invitation link's accept page; changing roles, removing and revoking: ./memberActions.ts. */
export function memberRoutes(router: Router<AppState>, deps: AppDeps): void {
  getOperatorPage(router, '/portal/members', deps, async (ctx, operator) => {
    assertManager(operator);
    sendPage(ctx, 200, membersPage(navOf(operator, '/portal/members'), await membersInput(deps, operator)));
  });

  postOperatorForm(router, '/portal/members/invite', deps, async (ctx, { form, operator }) => {
    assertManager(operator);
    const nav = navOf(operator, '/portal/members');
    const again = (error: ApiError) => refuseOnMembersPage(ctx, deps, operator, error, { form });
    const role = form.role ?? '';
    if (!isRole(role)) return again(invalidRole());
    const outcome = await inviteMember(deps, { inviter: operator.user, email: form.email ?? '', role });
    if (!outcome.ok) {
      switch (outcome.refused) {
        case 'invalid_fields':
          return again(errors.validation(outcome.problems));
        case 'forbidden':
          return again(onlyOwners());
        case 'email_taken':
          return again(new ApiError(409, 'email_taken', 'This email address already belongs to a user'));
      }
    }
    // The link is a credential: mailed to the invited address only (accepting it proves the address), logged by id.
    const mailed = await mailInvitation(mailingDeps(ctx, deps), {
      invitation: outcome.invitation,
      link: outcome.link,
      inviterEmail: operator.user.email,
    });
    ctx.state.log.info({ invitation_id: outcome.invitation.id, user_id: operator.user.id, mailed }, 'member invited in the portal');
    const { email } = outcome.invitation;
    if (ctx.accepts('html', 'json') === 'json') {
      ctx.status = 201;
      ctx.body = { id: outcome.invitation.id, email, role, expires_at: outcome.invitation.expires_at, mailed };
      return;
    }
    sendPage(ctx, 201, membersPage(nav, await membersInput(deps, operator, { invited: { email, role, mailed } })));
  });

  // The token rides in the query string, which the request log and traces leave out (they record the path).
  router.get('/portal/invite', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const invitation = token ? await pendingInvitation(deps, token) : undefined;
    if (!invitation) throw invitationInvalid();
    const csrfToken = preSessionToken(ctx, deps);
    sendPage(ctx, 200, acceptInvitationPage({ csrfToken, token, email: invitation.email, role: invitation.role }));
  });

  router.post('/portal/invite', async (rawCtx) => {
    const ctx = rawCtx as AppContext;
    const form = await readForm(ctx);
    const csrfToken = preSessionToken(ctx, deps);
    assertCsrf(ctx, deps, form, readCookie(ctx, PRE_SESSION_CSRF_COOKIE));
    const token = form.token ?? '';
    const outcome = await acceptInvitation(deps, { token, password: form.password ?? '', clientAddress: ctx.ip });
    if (!outcome.ok) {
      switch (outcome.refused) {
        case 'invitation_invalid':
          throw invitationInvalid();
        case 'email_taken':
          throw new ApiError(409, 'email_taken', 'This email address is already registered; log in instead');
        case 'rate_limited':
          throw new ApiError(429, 'rate_limited', 'Too many attempts; try again later', undefined, {
            'Retry-After': String(outcome.retryAfterSeconds),
          });
        case 'invalid_fields': {
          const invitation = await pendingInvitation(deps, token);
          if (!invitation) throw invitationInvalid();
          return refuse(ctx, errors.validation(outcome.problems), (shown) =>
            acceptInvitationPage({ csrfToken, token, email: invitation.email, role: invitation.role, error: shown }),
          );
        }
      }
    }
    ctx.state.log.info({ workspace_id: outcome.workspaceId, user_id: outcome.userId }, 'member invitation accepted');
    startSession(ctx, deps, outcome.session, outcome.userId);
    changed(ctx, '/portal', 201, { workspace_id: outcome.workspaceId, user_id: outcome.userId });
  });
}
