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

/**
 * Who a request for a mailed link (a password reset, a new verification link) is for, once it is within
 * its limits per address and per client. An unknown address is `member: undefined`, which callers answer
 * as they answer a known one (no existence leak).
 */
export async function memberAskingForMail(
  deps: MailingDeps,
  request: { email: string; clientAddress: string },
): Promise<{ limited: AccessRefusal } | { limited?: undefined; member: Awaited<ReturnType<typeof findMemberByEmail>> }> {
  const email = normalizeEmail(request.email);
  const limited = await consumeAccessLimits(deps, [
    { name: 'portal.mail_address', value: request.clientAddress },
    { name: 'portal.mail_account', value: email },
  ]);
  if (limited) return { limited };
  return { member: await findMemberByEmail(deps.db, email) };
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
