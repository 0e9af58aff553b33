import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { setPasswordHash } from '../../src/domain/accounts/store';
import { addUser } from '../../src/domain/workspaces/service';
import { hashPassword } from '../../src/platform/crypto/password';
import { CALLEE } from './customer';
import { eventually } from './eventually';
import type { Harness } from './harness';
import { linkIn, type SmtpReceiver } from './smtpReceiver';

/**
 * A portal visitor over plain HTTP: keeps cookies as a browser would (by name, for /portal) and
 * reads the CSRF token from the forms it is shown.
 */
export interface PortalResponse {
  status: number;
  headers: Headers;
  text: string;
  setCookies: string[];
}

export class PortalClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<PortalResponse> {
    return this.send('GET', path, undefined, headers);
  }

  /** Posts a form; `csrf_token` is taken from `page` unless the form names its own. */
  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<PortalResponse> {
    return this.send('POST', path, new URLSearchParams(form).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    });
  }

  /** The CSRF token of the first form on a page. */
  static csrfOf(page: PortalResponse): string {
    const match = /name="csrf_token" value="([^"]+)"/.exec(page.text);
    if (!match) throw new Error(`no CSRF token on the page (status ${page.status})`);
    return match[1];
  }

  /** GETs `formPage` and posts `form` with its token. */
  async submit(
    formPage: string,
    action: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<PortalResponse> {
    const page = await this.get(formPage);
    return this.post(action, { csrf_token: PortalClient.csrfOf(page), ...form }, headers);
  }

  private async send(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<PortalResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      body,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...headers },
    });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (attributes.some((attribute) => /^max-age=0$/i.test(attribute))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), setCookies };
  }
}

export const OPERATOR_PASSWORD = 'correct horse battery';

export interface SignedUpOperator {
  client: PortalClient;
  userId: string;
  workspaceId: string;
  email: string;
}

/**
 * A new workspace's owner, signed up as a visitor does under SIGNUP_MODE=open: the portal's signup
 * form (JSON answer), the verification mail read from the harness's SMTP receiver, its link's
 * confirmation form posted, which opens the session the returned client holds.
 */
export async function signUpOperator(h: Pick<Harness, 'apiUrl' | 'mail'>, tag = 'ops'): Promise<SignedUpOperator> {
  const client = new PortalClient(h.apiUrl);
  const email = `${tag}+${crypto.randomBytes(4).toString('hex')}@example.test`;
  const res = await client.submit(
    '/portal/signup',
    '/portal/signup',
    { email, password: OPERATOR_PASSWORD },
    { accept: 'application/json' },
  );
  if (res.status !== 202) throw new Error(`signup answered ${res.status}: ${res.text}`);
  const { user_id: userId, workspace_id: workspaceId } = JSON.parse(res.text);
  const verified = await verifyByMail(client, h.mail, email);
  if (verified.status !== 303) throw new Error(`verification answered ${verified.status}: ${verified.text.slice(0, 300)}`);
  return { client, userId, workspaceId, email };
}

/** Reads the verification mail sent to `email` and posts its link's confirmation form with `client`. */
export async function verifyByMail(
  client: PortalClient,
  mail: SmtpReceiver,
  email: string,
  headers: Record<string, string> = {},
): Promise<PortalResponse> {
  const link = linkIn(await mail.waitForMail(email, { subject: /Confirm your email/ }), '/portal/verify');
  const token = new URL(link, 'http://portal').searchParams.get('token') ?? '';
  return client.submit(link, '/portal/verify', { token }, headers);
}

/** Forgets the portal's login and signup counters, so one test's sign-ups do not limit the next's. */
export async function resetPortalLimits(db: Knex): Promise<void> {
  await db('rate_limit_windows').where('bucket', 'like', 'portal.%').del();
}

/** A plain member of the workspace (added as the CLI's `user add` does), signed in to the portal. */
export async function signInMember(baseUrl: string, db: Knex, workspaceId: string): Promise<PortalClient> {
  const email = `member+${crypto.randomBytes(4).toString('hex')}@example.test`;
  const member = await addUser(db, { workspaceId, email, role: 'member' });
  await setPasswordHash(db, member.id, await hashPassword(OPERATOR_PASSWORD), new Date());
  const client = new PortalClient(baseUrl);
  const login = await client.submit('/portal/login', '/portal/login', { email, password: OPERATOR_PASSWORD });
  if (login.status !== 303) throw new Error(`member login answered ${login.status}`);
  return client;
}

/** A line made with the portal's form in the test environment (201 expected): its id, and the page shown once with its signing secret. */
export async function createLineInPortal(
  client: PortalClient,
  fields: Record<string, string>,
): Promise<{ lineId: string; page: PortalResponse }> {
  const page = await client.submit('/portal/lines', '/portal/lines', { env: 'test', ...fields });
  if (page.status !== 201) throw new Error(`the portal's line form answered ${page.status}: ${page.text.slice(0, 500)}`);
  return { lineId: /data-line-id="([^"]+)"/.exec(page.text)![1], page };
}

/**
 * A test call placed with the line page's form (303 expected), as an operator presses "Place a test call" once the
 * line offers it (an active line), with the browser's `headers`: the new call's id.
 */
export async function placeTestCallInPortal(
  client: PortalClient,
  lineId: string,
  to = CALLEE,
  headers: Record<string, string> = {},
): Promise<string> {
  const linePage = await eventually(async () => {
    const page = await client.get(`/portal/lines/${lineId}?env=test`);
    return page.text.includes('name="idempotency_key"') ? page : undefined;
  });
  const form = {
    csrf_token: PortalClient.csrfOf(linePage),
    env: 'test',
    to_number: to,
    idempotency_key: /name="idempotency_key" value="([^"]+)"/.exec(linePage.text)![1],
  };
  const placed = await client.post(`/portal/lines/${lineId}/calls`, form, headers);
  if (placed.status !== 303) throw new Error(`the portal's call form answered ${placed.status}: ${placed.text.slice(0, 500)}`);
  return /^\/portal\/calls\/([0-9a-f-]{36})\?env=test$/.exec(placed.headers.get('location')!)![1];
}

/** The token of the invitation link mailed to `email` (the portal shows it to no one: issue 27, H5). */
export async function mailedInvitationToken(mail: SmtpReceiver, email: string): Promise<string> {
  const link = linkIn(await mail.waitForMail(email, { subject: /You are invited/ }), '/portal/invite');
  return new URL(link, 'http://portal').searchParams.get('token')!;
}
