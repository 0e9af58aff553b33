import crypto from 'node:crypto';
import type { Harness } from './harness';
import { mailedInvitationToken, OPERATOR_PASSWORD, PortalClient, type PortalResponse } from './portalClient';

const JSON_ACCEPT = { accept: 'application/json' };

type PortalHarness = Pick<Harness, 'apiUrl' | 'mail'>;

export const newEmail = (tag: string) => `${tag}+${crypto.randomBytes(4).toString('hex')}@example.test`;

/** An invitation issued by `inviter` in the portal: the token of the link mailed to the invitee. */
export async function inviteInPortal(h: PortalHarness, inviter: PortalClient, email: string, role: string): Promise<string> {
  const invited = await inviter.submit('/portal/members', '/portal/members/invite', { email, role }, JSON_ACCEPT);
  if (invited.status !== 201) throw new Error(`the invitation answered ${invited.status}: ${invited.text.slice(0, 300)}`);
  return mailedInvitationToken(h.mail, email);
}

/** Accepts an invitation in a fresh browser: the answer (201 when it joined). */
export async function acceptInPortal(h: PortalHarness, token: string): Promise<{ client: PortalClient; answer: PortalResponse }> {
  const client = new PortalClient(h.apiUrl);
  const answer = await client.submit(
    `/portal/invite?token=${token}`,
    '/portal/invite',
    { token, password: OPERATOR_PASSWORD },
    JSON_ACCEPT,
  );
  return { client, answer };
}

/** A new member of `inviter`'s workspace with `role`, invited and joined through the portal, signed in. */
export async function joinAs(
  h: PortalHarness,
  inviter: PortalClient,
  role: string,
): Promise<{ client: PortalClient; userId: string; email: string }> {
  const email = newEmail(role);
  const { client, answer } = await acceptInPortal(h, await inviteInPortal(h, inviter, email, role));
  if (answer.status !== 201) throw new Error(`accepting the invitation answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return { client, userId: JSON.parse(answer.text).user_id, email };
}
