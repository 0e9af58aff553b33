import type { InvitationRow, MemberRow } from '../../../src/domain/accounts/store';
import { ROLES, type Role } from '../../../src/domain/keys/scopes';
import { html, type Html } from '../html';
import { confirmLink, option, table, time } from '../components';
import { labelOf, ROLE_LABELS } from '../labels';
import { csrfField, errorBox, layout, type PageNav, type ShownError } from '../layout';

export interface MembersPageInput {
  members: MemberRow[];
  invitations: InvitationRow[];
  /** The signed-in operator's role: only an owner is offered owner changes. */
  actorRole: Role;
  error?: ShownError;
  /** An invitation just made: whether its link went out by mail (it is shown to no one). */
  invited?: { email: string; role: Role; mailed: boolean };
  form?: Record<string, string>;
}

function roleOptions(offered: readonly Role[], selected: string | undefined): Html[] {
  return offered.map((role) => option(role, selected, ROLE_LABELS[role]));
}

/** The members of the workspace, their roles, pending invitations and the invite form (owners and admins). */
export function membersPage(nav: PageNav, input: MembersPageInput): Html {
  const offered = input.actorRole === 'owner' ? ROLES : ROLES.filter((role) => role !== 'owner');
  const members = table({
    id: 'members',
    caption: 'Members of this workspace',
    rows: input.members,
    rowData: (member) => ({ 'user-id': member.id }),
    empty: html``, // never: the page is shown to a member
    columns: [
      { header: 'Email', cell: (member) => member.email },
      { header: 'Role', cell: (member) => ROLE_LABELS[member.role] },
      { header: 'Since', cell: (member) => time(member.created_at, 'day') },
    ],
    actions: (member) =>
      member.role !== 'owner' || input.actorRole === 'owner'
        ? html`<form method="get" action="/portal/members/${member.id}/role">
              <label for="role-${member.id}" class="visually-hidden">Role of ${member.email}</label>
              <select id="role-${member.id}" name="role">
                ${roleOptions(offered, member.role)}
              </select>
              <button type="submit">Change role…</button>
            </form>
            ${confirmLink(`/portal/members/${member.id}/remove`, 'Remove…', { ariaLabel: `Remove ${member.email}` })}`
        : '',
  });
  return layout(
    'Members',
    html`${errorBox(input.error)} ${input.invited ? invitedPanel(input.invited) : ''} ${members} ${invitationsTable(input.invitations)}
      <h2>Invite a member</h2>
      <form method="post" action="/portal/members/invite" class="card">
        ${csrfField(nav.csrfToken)}
        <label for="invite-email">Email</label>
        <input id="invite-email" name="email" type="email" required value="${input.form?.email ?? ''}" />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          ${roleOptions(offered, input.form?.role ?? 'member')}
        </select>
        <button type="submit">Invite</button>
      </form>`,
    nav,
  );
}

function invitedPanel(invited: { email: string; role: Role; mailed: boolean }): Html {
  return html`<section class="secret" aria-labelledby="invited-title">
    <h2 id="invited-title">Invitation for ${invited.email} (${ROLE_LABELS[invited.role]})</h2>
    ${
      invited.mailed
        ? html`<p id="invite-mailed">
            We mailed the invitation link to ${invited.email}. It works once and expires in 7 days; accepting it proves the address. Only
            its hash is kept.
          </p>`
        : html`<p id="invite-mailed" role="alert">We could not mail the invitation just now. Revoke it below and invite again.</p>`
    }
  </section>`;
}

function invitationsTable(invitations: InvitationRow[]): Html {
  return table({
    id: 'invitations',
    caption: 'Pending invitations',
    rows: invitations,
    rowData: (invitation) => ({ 'invitation-id': invitation.id }),
    empty: html`<p id="no-invitations">No pending invitations.</p>`,
    columns: [
      { header: 'Email', cell: (invitation) => invitation.email },
      { header: 'Role', cell: (invitation) => labelOf(ROLE_LABELS, invitation.role) },
      { header: 'Expires', cell: (invitation) => time(invitation.expires_at, 'day') },
    ],
    actions: (invitation) =>
      confirmLink(`/portal/invitations/${invitation.id}/revoke`, 'Revoke…', { ariaLabel: `Revoke the invitation of ${invitation.email}` }),
  });
}

/** The page an invitation link opens: the address is fixed, the invited person chooses a password. */
export function acceptInvitationPage(input: { csrfToken: string; token: string; email: string; role: Role; error?: ShownError }): Html {
  return layout(
    'Join the workspace',
    html`${errorBox(input.error)}
      <p>You are invited as <strong>${labelOf(ROLE_LABELS, input.role)}</strong>. Choose a password to finish.</p>
      <form method="post" action="/portal/invite" class="card">
        ${csrfField(input.csrfToken)}
        <input type="hidden" name="token" value="${input.token}" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" readonly value="${input.email}" />
        <label for="password">Password (at least 10 characters)</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" />
        <button type="submit">Join</button>
      </form>`,
  );
}
