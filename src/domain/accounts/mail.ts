import type { Mailer, MailMessage } from '../../adapters/email/port';
import type { Role } from '../keys/scopes';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import { consumeAccessLimits, type AccessRefusal } from './accessLimits';
import { ACCOUNT_TOKEN_LIFETIME_MS, findMemberByEmail } from './accountTokens';
import { normalizeEmail } from './rules';

/** A use case that mails: its deps carry the process's mailer (src/adapters/email/smtp.ts) and the request's log. */
export type MailingDeps = LoggedUseCaseDeps & { mailer: Mailer };

/**
 * Sends one message; false (and the relay's error logged, never the link) when the relay refused it
 * or could not be reached: the account change stands and the visitor can ask for the mail again.
 */
export async function sendAccountMail(deps: MailingDeps, message: MailMessage): Promise<boolean> {
  try {
    await deps.mailer.send(message);
    return true;
  } catch (err) {
    deps.log.error({ err: (err as Error).message, subject: message.subject }, 'account mail not sent');
    return false;
  }
}

/** The answer to a request for a mailed link: the same whether or not the address has an account. */
export type MailRequestAnswer = { ok: true } | ({ ok: false } & AccessRefusal);

/**
 * Answers a request for a mailed link (a password reset, a new verification link): within its limits
 * per address and per client, `mail` sends it when the address is a current member's; an unknown
 * address gets the same answer and no mail (no existence leak).
 */
export async function answerMailRequest(
  deps: MailingDeps,
  request: { email: string; clientAddress: string },
  mail: (member: NonNullable<Awaited<ReturnType<typeof findMemberByEmail>>>) => Promise<void>,
): Promise<MailRequestAnswer> {
  const email = normalizeEmail(request.email);
  const limited = await consumeAccessLimits(deps, [
    { name: 'portal.mail_address', value: request.clientAddress },
    { name: 'portal.mail_account', value: email },
  ]);
  if (limited) return { ok: false, ...limited };
  const member = await findMemberByEmail(deps.db, email);
  if (member) await mail(member);
  return { ok: true };
}

const HOUR_MS = 60 * 60 * 1000;

function portalLink(publicBaseUrl: string, path: string, token: string): string {
  // The token rides in the query, which request logs and traces leave out (as the invitation link's).
  return `${publicBaseUrl.replace(/\/+$/, '')}${path}?token=${token}`;
}

export function verificationMail(publicBaseUrl: string, to: string, token: string): MailMessage {
  return {
    to,
    subject: 'Confirm your email address for Switchboard',
    text: [
      'Someone (we hope you) created a Switchboard workspace with this address.',
      '',
      'Confirm the address to start using it:',
      portalLink(publicBaseUrl, '/portal/verify', token),
      '',
      `The link works once, for ${ACCOUNT_TOKEN_LIFETIME_MS.email_verification / HOUR_MS} hours. If it was not you, ignore this message.`,
      '',
    ].join('\n'),
  };
}

export function passwordResetMail(publicBaseUrl: string, to: string, token: string): MailMessage {
  return {
    to,
    subject: 'Reset your Switchboard password',
    text: [
      'Someone (we hope you) asked to reset the password of the Switchboard account with this address.',
      '',
      'Choose a new password here:',
      portalLink(publicBaseUrl, '/portal/password/reset', token),
      '',
      `The link works once, for ${ACCOUNT_TOKEN_LIFETIME_MS.password_reset / HOUR_MS} hour. Choosing a new password signs the account out everywhere.`,
      'If it was not you, ignore this message: your password stays as it is.',
      '',
    ].join('\n'),
  };
}

export function invitationMail(to: string, input: { workspaceName: string; inviterEmail: string; role: Role; link: string }): MailMessage {
  return {
    to,
    subject: `You are invited to ${input.workspaceName} on Switchboard`,
    text: [
      `${input.inviterEmail} invites you to join the Switchboard workspace "${input.workspaceName}" as ${input.role}.`,
      '',
      'Accept the invitation and choose your password here:',
      input.link,
      '',
      'The link works once, for 7 days. If you did not expect it, ignore this message.',
      '',
    ].join('\n'),
  };
}
