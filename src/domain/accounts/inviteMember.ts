import crypto from 'node:crypto';
import type { Role } from '../keys/scopes';
import type { UseCaseDeps } from '../useCaseDeps';
import { emailProblems, INVITATION_LIFETIME_MS, memberChangeRefusal, normalizeEmail, type FieldProblem } from './rules';
import { workspaceName } from './accountTokens';
import { invitationMail, sendAccountMail, type MailingDeps } from './mail';
import { countOwners, findUserByEmail, insertInvitation, sessionTokenHash, type InvitationRow } from './store';

export type InviteOutcome =
  | { ok: true; invitation: InvitationRow; token: string; link: string }
  | { ok: false; refused: 'invalid_fields'; problems: FieldProblem[] }
  | { ok: false; refused: 'forbidden' | 'email_taken' };

/** The page an invited person opens; the token rides in the query, which request logs and traces leave out. */
export function invitationLink(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/portal/invite?token=${token}`;
}

/**
 * Invites an address into a workspace with a role, for the portal's members page and the CLI's
 * `member invite` alike. The link's token (256 random bits) is returned once and stored only as its
 * SHA-256. `inviter` is the user who asks (the CLI acts as the workspace's owner).
 */
export async function inviteMember(
  deps: Pick<UseCaseDeps, 'db' | 'config' | 'now'>,
  request: { inviter: { id: string; workspace_id: string; role: Role }; email: string; role: Role },
): Promise<InviteOutcome> {
  const email = normalizeEmail(request.email);
  const problems = emailProblems(email);
  if (problems.length > 0) return { ok: false, refused: 'invalid_fields', problems };
  const workspaceId = request.inviter.workspace_id;
  const refusal = memberChangeRefusal({
    actorRole: request.inviter.role,
    newRole: request.role,
    ownerCount: await countOwners(deps.db, workspaceId),
  });
  if (refusal) return { ok: false, refused: 'forbidden' };
  // An address belongs to one user of one workspace (users.email is unique).
  if (await findUserByEmail(deps.db, email)) return { ok: false, refused: 'email_taken' };
  const token = crypto.randomBytes(32).toString('base64url');
  const now = deps.now();
  const invitation = await insertInvitation(deps.db, {
    workspaceId,
    email,
    role: request.role,
    tokenHash: sessionTokenHash(token),
    invitedBy: request.inviter.id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
  });
  return { ok: true, invitation, token, link: invitationLink(deps.config.publicBaseUrl, token) };
}

/**
 * Mails an invitation just made to the invited address (issue 27, H5): the portal shows the link to
 * no one else, so accepting it proves the address. False when the relay refused it (logged); the
 * inviter can revoke and invite again.
 */
export async function mailInvitation(
  deps: MailingDeps,
  invited: { invitation: InvitationRow; link: string; inviterEmail: string },
): Promise<boolean> {
  const name = await workspaceName(deps.db, invited.invitation.workspace_id);
  return sendAccountMail(
    deps,
    invitationMail(invited.invitation.email, {
      workspaceName: name,
      inviterEmail: invited.inviterEmail,
      role: invited.invitation.role,
      link: invited.link,
    }),
  );
}
