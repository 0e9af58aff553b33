import type http from 'node:http';
import twilio from 'twilio';
import { describeErrors, twilioOperations, type TwilioOperation } from './twilioContractSchemas';

/**
 * The contract the Twilio stub (./twilioStub.ts) is held to, from Twilio's own descriptions:
 *
 * - every REST request the adapter sends is checked against its vendored twilio-oai operation
 *   (./twilioContractSchemas.ts): path and path parameters, method, each query and form parameter's
 *   name, type, format and enum, the form encoding of a body, and Basic auth with the account SID;
 * - every answer the stub gives is checked against that operation's response (status code, JSON
 *   body), or Twilio's error envelope for a 4xx/5xx;
 * - every callback and WebSocket upgrade the stub signs is checked by the official
 *   `twilio.validateRequest` over the exact URL and parameters (an oracle beside Switchboard's own
 *   check), and a callback it refuses must not be accepted by Switchboard.
 *
 * A violation is recorded (the stub answers a refused request with Twilio's 400 envelope) and fails
 * the test it happened in: an `afterEach`, registered below for every test file that loads the stub,
 * throws what was recorded; `close()` throws what is left.
 */

export interface ContractViolation {
  /** What was checked, e.g. `POST /2010-04-01/Accounts/AC…/Calls.json (CreateCall) request`. */
  what: string;
  problems: string[];
}

export interface TwilioContract {
  readonly violations: ContractViolation[];
  /** Checks a REST request and arranges for its answer to be checked; the problems found (none: conforms). */
  request(req: http.IncomingMessage, res: http.ServerResponse, rawBody: string): string[];
  /** A callback the stub posted (`ownSignature`: signed by the stub itself, not a test's forgery) and Switchboard's HTTP answer. */
  callback(sent: { url: string; params: Record<string, string>; signature: string; ownSignature: boolean; status: number }): void;
  /** A WebSocket upgrade the stub signs (ConversationRelay, Media Streams: the wss:// URL, no parameters). */
  upgrade(url: string, signature: string): void;
  /** Returns and forgets what was recorded (tests that provoke violations on purpose). */
  take(): ContractViolation[];
  /** Throws what was recorded, and forgets it. */
  assertNone(): void;
  /** Stops checking; throws what was recorded. */
  close(): void;
}

const live = new Set<TwilioContract>();

// Every test of a file that loads the stub fails with the violations recorded while it ran.
if (typeof afterEach === 'function') {
  afterEach(() => {
    const found = [...live].flatMap((contract) => contract.take());
    if (found.length > 0) throw new Error(report(found));
  });
}

function report(violations: ContractViolation[]): string {
  return `Twilio contract violated (test/support/twilioContract.ts):\n${violations
    .map((v) => `- ${v.what}:\n${v.problems.map((p) => `    ${p}`).join('\n')}`)
    .join('\n')}`;
}

/** Form or query values, an array where a key repeats (how Twilio's clients send arrays). */
function multiValued(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** Recording media: the Recording resource's URL with `.wav` or `.mp3` ("Fetch a Recording media file"), answered as audio. */
const MEDIA = /\.(wav|mp3)$/;
const MEDIA_TYPES: Record<string, string> = { wav: 'audio/x-wav', mp3: 'audio/mpeg' };

function findOperation(method: string, path: string): { operation?: TwilioOperation; match?: RegExpExecArray; problem?: string } {
  const { operations } = twilioOperations();
  const media = MEDIA.exec(path);
  const candidates = media
    ? operations
        .filter((op) => op.operationId === 'FetchRecording')
        .map((op) => ({ op, match: op.pattern.exec(path.replace(MEDIA, '.json')) }))
    : operations.map((op) => ({ op, match: op.pattern.exec(path) }));
  const onPath = candidates.filter((c) => c.match);
  if (onPath.length === 0) return { problem: `no vendored Twilio operation has the path ${path}` };
  const found = onPath.find((c) => c.op.method === method);
  if (!found) return { problem: `Twilio's description has no ${method} on ${onPath[0].op.template}` };
  return { operation: found.op, match: found.match! };
}

function checkAuth(header: string | undefined, accountSid: string | undefined): string[] {
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? '');
  if (!basic) return ['Authorization is not HTTP Basic (Twilio: the account SID and auth token)'];
  const [user, ...password] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
  const problems: string[] = [];
  if (!/^AC[0-9a-fA-F]{32}$/.test(user)) problems.push(`Basic auth user ${user} is not an account SID`);
  else if (accountSid !== undefined && user !== accountSid)
    problems.push(`Basic auth user ${user} is not the path's AccountSid ${accountSid}`);
  if (password.join(':') === '') problems.push('Basic auth has no auth token');
  return problems;
}

function checkRequest(req: http.IncomingMessage, rawBody: string): { operation?: TwilioOperation; media?: string; problems: string[] } {
  const method = req.method ?? '';
  const url = new URL(req.url ?? '/', 'http://stub');
  const { operation, match, problem } = findOperation(method, url.pathname);
  if (!operation || !match) return { problems: [problem!] };
  const problems: string[] = [];
  const names = [...operation.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const pathParams = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1])]));
  if (!operation.pathParameters(pathParams)) problems.push(...describeErrors(operation.pathParameters.errors, 'path'));
  if (!operation.queryParameters(multiValued(url.searchParams)))
    problems.push(...describeErrors(operation.queryParameters.errors, 'query'));
  const contentType = req.headers['content-type'] ?? '';
  if (operation.body) {
    if (!contentType.startsWith('application/x-www-form-urlencoded'))
      problems.push(`the body is ${contentType || 'untyped'}, not application/x-www-form-urlencoded`);
    else if (!operation.body(multiValued(new URLSearchParams(rawBody)))) problems.push(...describeErrors(operation.body.errors, 'body'));
  } else if (rawBody !== '') problems.push(`${operation.operationId} takes no body`);
  if (operation.basicAuth) problems.push(...checkAuth(req.headers.authorization, pathParams.AccountSid));
  return { operation, media: MEDIA.exec(url.pathname)?.[1], problems };
}

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

function checkResponse(operation: TwilioOperation, media: string | undefined, { status, contentType, body }: Answer): string[] {
  if (media && status === 200)
    return contentType === MEDIA_TYPES[media] ? [] : [`a .${media} recording is ${MEDIA_TYPES[media]}, not ${contentType || 'untyped'}`];
  const declared = operation.responses.has(status);
  if (!declared && status < 400) return [`Twilio's description gives ${operation.operationId} no ${status} answer`];
  if (declared && operation.responses.get(status) === undefined) return body.length === 0 ? [] : [`a ${status} answer has no body`];
  if (!contentType.startsWith('application/json')) return [`the answer is ${contentType || 'untyped'}, not application/json`];
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return ['the answer is not JSON'];
  }
  const validate = declared ? operation.responses.get(status)! : twilioOperations().error;
  if (!validate(json)) return describeErrors(validate.errors, declared ? 'response' : 'error');
  if (!declared && (json as { status: number }).status !== status) return [`the error envelope's status is not the HTTP status ${status}`];
  return [];
}

/** A check that throws (a schema ajv cannot compile) is a violation too, never a request left unanswered. */
function checkedOrFailed(check: () => ReturnType<typeof checkRequest>): ReturnType<typeof checkRequest> {
  try {
    return check();
  } catch (err) {
    return { problems: [`the contract could not check it: ${(err as Error).message}`] };
  }
}

/** Copies what is written to `res` (passing it on unchanged) and hands it over once the answer ends. */
function onAnswered(res: http.ServerResponse, done: (answer: Answer) => void): void {
  const chunks: Buffer[] = [];
  let contentType = '';
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => http.ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const headers = rest.find((arg) => typeof arg === 'object' && arg !== null && !Array.isArray(arg)) as
      Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(headers ?? {})) if (name.toLowerCase() === 'content-type') contentType = String(value);
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
  const keep = (chunk: unknown) => {
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => http.ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk);
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') keep(chunk);
    done({ status: res.statusCode, contentType: contentType || String(res.getHeader('content-type') ?? ''), body: Buffer.concat(chunks) });
    return end(chunk, ...rest);
  }) as typeof res.end;
}

export function twilioContract(account: { accountSid: string; authToken: string }): TwilioContract {
  let violations: ContractViolation[] = [];
  const record = (what: string, problems: string[]) => {
    if (problems.length > 0) violations.push({ what, problems });
  };
  const contract: TwilioContract = {
    get violations() {
      return violations;
    },
    request(req, res, rawBody) {
      const { operation, media, problems } = checkedOrFailed(() => checkRequest(req, rawBody));
      const what = `${req.method} ${new URL(req.url ?? '/', 'http://stub').pathname}${operation ? ` (${operation.operationId})` : ''}`;
      record(`${what} request`, problems);
      if (operation) onAnswered(res, (answer) => record(`${what} answer ${answer.status}`, checkResponse(operation, media, answer)));
      return problems;
    },
    callback({ url, params, signature, ownSignature, status }) {
      const valid = twilio.validateRequest(account.authToken, signature, url, params);
      const problems: string[] = [];
      if (ownSignature && !valid) problems.push("the stub's X-Twilio-Signature is not the one twilio.validateRequest expects");
      if (!valid && status < 400) problems.push(`Switchboard answered ${status} to a callback twilio.validateRequest refuses`);
      record(`callback POST ${url}`, problems);
    },
    upgrade(url, signature) {
      if (!twilio.validateRequest(account.authToken, signature, url, {}))
        record(`WebSocket upgrade ${url}`, ["the stub's X-Twilio-Signature is not the one twilio.validateRequest expects"]);
    },
    take() {
      const taken = violations;
      violations = [];
      return taken;
    },
    assertNone() {
      const taken = contract.take();
      if (taken.length > 0) throw new Error(report(taken));
    },
    close() {
      live.delete(contract);
      contract.assertNone();
    },
  };
  live.add(contract);
  return contract;
}
