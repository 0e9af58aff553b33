import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message as the receiver got it over SMTP: envelope, headers of interest and the decoded text body. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  raw: string;
}

export interface SmtpReceiver {
  /** `smtp://127.0.0.1:<port>`: what SMTP_URL is set to. */
  url: string;
  /** Every message received so far, oldest first. */
  messages(): ReceivedMail[];
  /**
   * The oldest message to `to` (and with a subject matching `subject`) that no earlier call returned,
   * waiting for it to arrive; fails after `timeoutMs`.
   */
  waitForMail(to: string, options?: { subject?: RegExp; timeoutMs?: number }): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server (the `smtp-server` package) on a free loopback port, for tests: the service
 * sends to it with nodemailer exactly as it sends to a production relay, and tests read what
 * arrived. Plain SMTP without STARTTLS or AUTH (nodemailer then sends in the clear, as to a local relay).
 */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
          ...parseMessage(raw),
          raw,
        });
        for (const wake of waiters) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  const findUntaken = (to: string, subject?: RegExp) =>
    received.find((mail) => !taken.has(mail) && mail.to.includes(to.toLowerCase()) && (!subject || subject.test(mail.subject)));

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages: () => [...received],
    async waitForMail(to, options = {}) {
      const timeoutMs = options.timeoutMs ?? 15_000;
      const found = await new Promise<ReceivedMail | undefined>((resolve) => {
        const check = () => {
          const mail = findUntaken(to, options.subject);
          if (!mail) return false;
          done(mail);
          return true;
        };
        const timer = setTimeout(() => done(undefined), timeoutMs);
        const done = (mail: ReceivedMail | undefined) => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(mail);
        };
        const wake = () => void check();
        waiters.add(wake);
        check();
      });
      if (!found) throw new Error(`no mail to ${to}${options.subject ? ` matching ${options.subject}` : ''} within ${timeoutMs} ms`);
      taken.add(found);
      return found;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a message's text that goes to `path` (e.g. `/portal/verify`), as a path with its query. */
export function linkIn(mail: ReceivedMail, path: string): string {
  const match = new RegExp(`https?://[^\\s/]+(${path.replace(/[/.?]/g, '\\$&')}\\S*)`).exec(mail.text);
  if (!match) throw new Error(`no ${path} link in the mail "${mail.subject}": ${mail.text}`);
  return match[1];
}

/** Subject and text body of a single-part text message (as the service sends), quoted-printable decoded. */
function parseMessage(raw: string): { subject: string; text: string } {
  const normalized = raw.replace(/\r\n/g, '\n');
  const split = normalized.indexOf('\n\n');
  const head = normalized.slice(0, split).replace(/\n[ \t]+/g, ' ');
  const body = normalized.slice(split + 2);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1].trim() ?? '';
  const quotedPrintable = /quoted-printable/i.test(header('Content-Transfer-Encoding'));
  const text = quotedPrintable
    ? Buffer.from(
        body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        'latin1',
      ).toString('utf8')
    : body;
  return { subject: decodeEncodedWords(header('Subject')), text };
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=` / `?B?`), which nodemailer uses for non-ASCII subjects. */
function decodeEncodedWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset: string, encoding: string, data: string) =>
    encoding.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(
          data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
