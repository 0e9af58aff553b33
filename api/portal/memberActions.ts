import type Router from '@koa/router';
import type { AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { changeMemberRole } from '../../src/domain/accounts/changeMemberRole';
import { removeMember } from '../../src/domain/accounts/removeMember';
import { findInvitation, findMemberOrFormer, revokeInvitation } from '../../src/domain/accounts/store';
import { isUuid } from '../openapi/formats';
import { changed } from './answer';
import { envFields, time, type ConfirmationView } from './components';
import { confirmedAction } from './confirm';
import { html } from './html';
import { isRole, type Role } from '../../src/domain/keys/scopes';
import { labelOf, ROLE_LABELS } from './labels';
import { invalidRole, membersInput, onlyOwners } from './memberRoutes';
import { listed, roleChangeWords } from './roleChange';
import { MEMBERS_SCOPE, navOf } from './operatorPages';
import { membersPage } from './pages/members';
import type { Operator } from './visitor';

const MEMBERS = '/portal/members';
const back = { href: MEMBERS, label: 'back to the members' };

const membersAgain = (deps: AppDeps) => async (operator: Operator) => {
  const input = await membersInput(deps, operator);
  return (shown: Parameters<typeof membersPage>[1]['error']) => membersPage(navOf(operator, MEMBERS), { ...input, error: shown });
};

/** A member removed since the page was drawn: what a stale removal or role change says. */
const removedStale = (member: { email: string }, removedAt: Date) => ({
  message: `${member.email} is no longer a member.`,
  state: html`<p id="current-state">Removed ${time(removedAt)}; their keys and pending invitations were revoked then.</p>`,
});

async function removalView(deps: AppDeps, operator: Operator, userId: string): Promise<ConfirmationView> {
  const member = isUuid(userId) ? await findMemberOrFormer(deps.db, operator.user.workspace_id, userId) : undefined;
  if (!member) throw errors.notFound('Member');
  const yourself = member.id === operator.user.id;
  const base = {
    title: yourself ? 'Leave the workspace?' : `Remove ${member.email} from the workspace?`,
    action: `${MEMBERS}/${member.id}/remove`,
    hidden: envFields(navOf(operator, MEMBERS)),
    confirmLabel: yourself ? 'Leave workspace' : 'Remove member',
    back,
  };
  if (member.removed_at) return { ...base, consequences: [], stale: removedStale(member, member.removed_at) };
  return {
    ...base,
    consequences: [
      yourself
        ? 'You are signed out at once and cannot sign in to this workspace again unless invited.'
        : html`${member.email} (${labelOf(ROLE_LABELS, member.role)}) is signed out at once and can no longer sign in.`,
      'Every API key they answer for is revoked with the tokens delegated below it: agents using them get 401 at once.',
      'Invitations they sent that are still pending are revoked.',
      'Their calls, lines and audit entries stay, still naming them.',
    ],
  };
}

async function invitationView(deps: AppDeps, operator: Operator, invitationId: string): Promise<ConfirmationView> {
  const invitation = isUuid(invitationId) ? await findInvitation(deps.db, operator.user.workspace_id, invitationId) : undefined;
  if (!invitation) throw errors.notFound('Invitation');
  const base = {
    title: `Revoke the invitation of ${invitation.email}?`,
    action: `/portal/invitations/${invitation.id}/revoke`,
    hidden: envFields(navOf(operator, MEMBERS)),
    confirmLabel: 'Revoke invitation',
    back,
  };
  const settled = invitation.accepted_at
    ? html`accepted ${time(invitation.accepted_at)}: ${invitation.email} is a member (remove them from the members list).`
    : invitation.revoked_at
      ? html`revoked ${time(invitation.revoked_at)}.`
      : invitation.expires_at <= deps.now()
        ? html`expired ${time(invitation.expires_at)}.`
        : undefined;
  if (settled)
    return {
      ...base,
      consequences: [],
      stale: { message: 'This invitation is no longer pending.', state: html`<p id="current-state">It was ${settled}</p>` },
    };
  return {
    ...base,
    consequences: [
      html`The link mailed to ${invitation.email} (as ${labelOf(ROLE_LABELS, invitation.role)}) stops working at once; it would have expired
      ${time(invitation.expires_at)}.`,
      'You can invite the address again later.',
    ],
  };
}

/**
 * A role change says what the person gains and loses, and what happens to their keys and invitations; it is stale
 * when they are gone or already hold the role. Only an owner may make, demote or change an owner.
 */
async function roleView(deps: AppDeps, operator: Operator, userId: string, asked: string | undefined): Promise<ConfirmationView> {
  if (asked !== undefined && !isRole(asked)) throw invalidRole();
  const member = isUuid(userId) ? await findMemberOrFormer(deps.db, operator.user.workspace_id, userId) : undefined;
  if (!member) throw errors.notFound('Member');
  const role = asked ?? member.role;
  if ((member.role === 'owner' || role === 'owner') && operator.user.role !== 'owner') throw onlyOwners();
  const yourself = member.id === operator.user.id;
  const base = {
    title: yourself ? `Make yourself ${role}?` : `Make ${member.email} ${role}?`,
    action: `${MEMBERS}/${member.id}/role`,
    hidden: { ...envFields(navOf(operator, MEMBERS)), role },
    confirmLabel: `Make ${role}`,
    back,
  };
  if (member.removed_at)
    return { ...base, consequences: [], stale: { ...removedStale(member, member.removed_at), code: 'member_removed' } };
  if (member.role === role)
    return {
      ...base,
      consequences: [],
      stale: {
        message: `${member.email} is already ${role}.`,
        state: html`<p id="current-state">${member.email} is ${member.role}: nothing would change.</p>`,
      },
    };
  return { ...base, consequences: roleConsequences(member.role, role, yourself ? 'You' : member.email) };
}

function roleConsequences(from: Role, to: Role, who: string): unknown[] {
  const words = roleChangeWords(from, to);
  return [
    html`${who} (now ${from}) becomes ${to} from the next page or request.`,
    ...(words.gained.length ? [html`<span data-gains>Gains: can ${words.gained.join('; ')}.</span>`] : []),
    ...(words.lost.length ? [html`<span data-loses>Loses: can no longer ${words.lost.join('; ')}.</span>`] : []),
    ...(words.narrowsKeys
      ? [
          'Every API key they answer for keeps only the scopes of the new role; a key left with none is revoked, with the tokens delegated below it.',
        ]
      : []),
    ...(words.invitationsRevokedFor.length ? [`Pending invitations they sent as ${listed(words.invitationsRevokedFor)} are revoked.`] : []),
  ];
}

/** Changing a member's role, removing a member and revoking an invitation, each behind its confirmation step (./confirm.ts). */
export function memberActions(router: Router<AppState>, deps: AppDeps): void {
  confirmedAction(router, deps, {
    path: `${MEMBERS}/:id/role`,
    navPath: MEMBERS,
    scope: MEMBERS_SCOPE,
    refusal: 'Your role cannot manage members',
    staleCode: 'role_unchanged',
    // A reload of the address without a role (a refused change's answer stays on it) shows the member as they are.
    describe: (ctx, operator, fields) => roleView(deps, operator, ctx.params.id, fields.role ?? (ctx.method === 'GET' ? undefined : '')),
    pageAgain: membersAgain(deps),
    act: async (ctx, operator, form) => {
      const role = form.role as Role;
      const outcome = await changeMemberRole(deps, { actor: operator.user, userId: ctx.params.id, role, via: 'portal' });
      if (!outcome.ok) {
        if (outcome.refused === 'not_found') throw errors.notFound('Member');
        if (outcome.refused === 'forbidden') throw onlyOwners();
        throw new ApiError(409, 'last_owner', 'The last owner of a workspace cannot be demoted: make another member owner first');
      }
      const { narrowedKeys, revokedKeys, revokedInvitations } = outcome;
      ctx.state.log.info(
        {
          user_id: ctx.params.id,
          role,
          by: operator.user.id,
          narrowed_keys: narrowedKeys,
          revoked_keys: revokedKeys,
          revoked_invitations: revokedInvitations,
        },
        'member role changed in the portal',
      );
      changed(ctx, MEMBERS, 200, {
        id: ctx.params.id,
        role,
        narrowed_keys: narrowedKeys,
        revoked_keys: revokedKeys,
        revoked_invitations: revokedInvitations,
      });
    },
  });

  confirmedAction(router, deps, {
    path: `${MEMBERS}/:id/remove`,
    navPath: MEMBERS,
    scope: MEMBERS_SCOPE,
    refusal: 'Your role cannot manage members',
    staleCode: 'member_removed',
    describe: (ctx, operator) => removalView(deps, operator, ctx.params.id),
    pageAgain: membersAgain(deps),
    act: async (ctx, operator) => {
      const outcome = await removeMember(deps, { actor: operator.user, userId: ctx.params.id, via: 'portal' });
      if (!outcome.ok) {
        if (outcome.refused === 'not_found') throw errors.notFound('Member');
        if (outcome.refused === 'forbidden') throw onlyOwners();
        throw new ApiError(409, 'last_owner', 'The last owner of a workspace cannot be removed: make another member owner first');
      }
      const { revokedKeys, revokedInvitations } = outcome;
      ctx.state.log.info(
        { user_id: ctx.params.id, revoked_keys: revokedKeys, revoked_invitations: revokedInvitations, by: operator.user.id },
        'member removed in the portal',
      );
      // Removing oneself ends one's own session: the login page follows.
      changed(ctx, ctx.params.id === operator.user.id ? '/portal/login' : MEMBERS, 200, {
        id: ctx.params.id,
        removed: true,
        revoked_keys: revokedKeys,
        revoked_invitations: revokedInvitations,
      });
    },
  });

  confirmedAction(router, deps, {
    path: '/portal/invitations/:id/revoke',
    navPath: MEMBERS,
    scope: MEMBERS_SCOPE,
    refusal: 'Your role cannot manage members',
    staleCode: 'invitation_not_pending',
    describe: (ctx, operator) => invitationView(deps, operator, ctx.params.id),
    pageAgain: membersAgain(deps),
    act: async (ctx, operator) => {
      if (!(await revokeInvitation(deps.db, operator.user.workspace_id, ctx.params.id, deps.now()))) throw errors.notFound('Invitation');
      ctx.state.log.info({ invitation_id: ctx.params.id, by: operator.user.id }, 'invitation revoked in the portal');
      changed(ctx, MEMBERS, 200, { id: ctx.params.id, revoked: true });
    },
  });
}
