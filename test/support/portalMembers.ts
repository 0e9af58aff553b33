import crypto from 'node:crypto';
import { OPERATOR_PASSWORD, PortalClient, type PortalResponse } from './portalClient';

const JSON_ACCEPT = { accept: 'application/json' };

export const newEmail = (tag: string) => `${tag}+${crypto.randomBytes(4).toString('hex')}@example.test`;

/** The token of an invitation link. */
export const invitationTokenOf = (link: string) => new URL(link).searchParams.get('token')!;

/** An invitation issued by `inviter` in the portal (JSON answer): its link. */
export async function inviteInPortal(inviter: PortalClient, email: string, role: string): Promise<string> {
  const invited = await inviter.submit('/portal/members', '/portal/members/invite', { email, role }, JSON_ACCEPT);
  if (invited.status !== 201) throw new Error(`the invitation answered ${invited.status}: ${invited.text.slice(0, 300)}`);
  return JSON.parse(invited.text).link;
}

/** Accepts an invitation link in a fresh browser: the answer (201 when it joined). */
export async function acceptInPortal(baseUrl: string, link: string): Promise<{ client: PortalClient; answer: PortalResponse }> {
  const client = new PortalClient(baseUrl);
  const token = invitationTokenOf(link);
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
  baseUrl: string,
  inviter: PortalClient,
  role: string,
): Promise<{ client: PortalClient; userId: string; email: string }> {
  const email = newEmail(role);
  const { client, answer } = await acceptInPortal(baseUrl, await inviteInPortal(inviter, email, role));
  if (answer.status !== 201) throw new Error(`accepting the invitation answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return { client, userId: JSON.parse(answer.text).user_id, email };
}
