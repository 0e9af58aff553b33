/** One plain-text message to one address: what the portal mails (verification, password reset, invitations). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Where mail leaves the service (src/adapters/email/smtp.ts); `send` resolves once the relay accepted it. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
