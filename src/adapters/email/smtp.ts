import nodemailer from 'nodemailer';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { Mailer, MailMessage } from './port';

/** An SMTP relay reached with nodemailer: `SMTP_URL` as nodemailer reads it, `MAIL_FROM` as the sender. */
export function smtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message: MailMessage) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}

/**
 * The dev profile without SMTP_URL (`npm run up`): each message is built by nodemailer as it would
 * be sent and written to the log, so a developer can follow a verification link (the console mail
 * backend of Django and Rails' letter_opener do the same). The startup check allows it only in dev.
 */
export function logMailer(from: string, logger: Logger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message: MailMessage) {
      const built = await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
      logger.info(
        { to: message.to, subject: message.subject, mail: String(built.message) },
        'mail not sent (no SMTP_URL in the dev profile): written here',
      );
    },
  };
}

/** The mailer of a process: SMTP when SMTP_URL is set, else (dev profile only, see startupCheck) the log. */
export function mailerFor(config: Config, logger: Logger): Mailer {
  return config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom) : logMailer(config.mailFrom, logger);
}
