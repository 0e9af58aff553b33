import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EnvFixtures } from './fixtures';

// smol-toml is an ES module with a CommonJS build; jest runs this file as CommonJS, so require that build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { stringify } = require('smol-toml') as typeof import('smol-toml', { with: { 'resolution-mode': 'import' } });

/**
 * Runs schemathesis against the served OpenAPI document: which operations a key kind can reach
 * (read from each operation's `security`), and a config that draws path and body parameters
 * from a tenant's real fixtures half of the time (the other half stays random), so the fuzzer
 * gets past "not found" into the handlers.
 */
export type KeyKind = 'standard' | 'service';

interface OpenApiOperation {
  operationId: string;
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown>; $ref?: string } }> };
}
type OpenApiDocument = {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
};

/** Which key kind an operation takes: none (`security: []`), a service key, or a standard key (the document's default). */
export function operationKeyKind(operation: OpenApiOperation): KeyKind | 'public' {
  if (operation.security === undefined) return 'standard';
  if (operation.security.length === 0) return 'public';
  return operation.security.some((requirement) => 'serviceKey' in requirement) ? 'service' : 'standard';
}

export function operationsOf(document: OpenApiDocument): Array<{ path: string; method: string; operation: OpenApiOperation }> {
  return Object.entries(document.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path: p, method, operation })),
  );
}

/** The fixture dictionary a parameter is drawn from, by where it is and what it names. */
function dictionaryFor(location: 'path' | 'query' | 'body', name: string, opPath: string, method: string): string | undefined {
  if (location === 'path' && name === 'id') {
    // A wait for the next inbound call on a real line holds the request up to 50 s, past the
    // request timeout: it is given ids that name no line (404), and its waits are the auth matrix's.
    if (opPath === '/api/v1/lines/{id}/calls/wait') return 'ended_calls';
    if (opPath.startsWith('/api/v1/lines/')) return method === 'delete' ? 'disposable_lines' : 'lines';
    // Controls get the ended call only: hangup would end the live call, and on it `wait` and
    // `speak` wait 30 s for the caller by default (the client's request timeout) and `press`
    // plays half a second per `w`. Their answers on a live call are checked by the auth matrix.
    if (opPath.startsWith('/api/v1/calls/')) return opPath === '/api/v1/calls/{id}' ? 'calls' : 'ended_calls';
    if (/^\/(api\/)?v1\/keys\//.test(opPath)) return 'agent_keys';
    if (opPath.startsWith('/api-tokens/')) return 'api_tokens';
    // A deleted list is gone: the deletes get lists of their own, so the reads keep finding theirs.
    if (opPath === '/api/v1/campaigns/contact-lists/{id}') return method === 'delete' ? 'disposable_contact_lists' : 'contact_lists';
    return undefined;
  }
  if (name === 'line_id' || name === 'lineId') return 'lines';
  if (['to_number', 'phone_number', 'phoneNumber'].includes(name) || (location === 'body' && name === 'to')) return 'phones';
  if (name === 'api_key_id') return 'key_ids';
  return undefined;
}

function bodyProperties(document: OpenApiDocument, operation: OpenApiOperation): string[] {
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  const resolved = schema?.$ref ? document.components?.schemas?.[schema.$ref.split('/').pop()!] : schema;
  return Object.keys(resolved?.properties ?? {});
}

export interface FuzzConfigInput {
  document: OpenApiDocument;
  keyKind: KeyKind;
  fixtures: EnvFixtures;
  /** Lines the fuzzer may release (DELETE), kept apart from the ones the other operations use. */
  disposableLineIds: string[];
  /** Contact lists the fuzzer may delete, apart from the fixture's (which the reads use). */
  disposableContactListIds: string[];
  maxExamples: number;
}

/** The schemathesis.toml of one run. */
export function fuzzConfig(input: FuzzConfigInput): string {
  const f = input.fixtures;
  const dictionaries: Record<string, { values: Array<string | number> }> = {
    lines: { values: [f.lineId, ...f.spareLineIds.filter((id) => !input.disposableLineIds.includes(id))] },
    disposable_lines: { values: input.disposableLineIds.length ? input.disposableLineIds : [f.lineId] },
    calls: { values: [f.liveCallId, f.endedCallId] },
    ended_calls: { values: [f.endedCallId] },
    agent_keys: { values: [f.agentKeyId] },
    api_tokens: { values: [f.apiTokenId] },
    phones: { values: [f.phoneNumber, f.linePhoneNumber] },
    key_ids: { values: ['self', f.agentKeyId, f.apiTokenId] },
    contact_lists: { values: [f.contactListId] },
    disposable_contact_lists: { values: input.disposableContactListIds.length ? input.disposableContactListIds : [f.contactListId] },
  };
  const operations = operationsOf(input.document).map(({ path: opPath, method, operation }) => {
    const kind = operationKeyKind(operation);
    const parameters: Record<string, { dictionary: string; probability: number }> = {};
    const bind = (location: 'path' | 'query' | 'body', name: string) => {
      const dictionary = dictionaryFor(location, name, opPath, method);
      if (dictionary) parameters[`${location}.${name}`] = { dictionary, probability: 0.5 };
    };
    for (const parameter of operation.parameters ?? [])
      if (parameter.in === 'path' || parameter.in === 'query') bind(parameter.in, parameter.name);
    for (const name of bodyProperties(input.document, operation)) bind('body', name);
    // Live call control on a call the fuzzer found in a response (it harvests ids from them) would
    // wait for the caller as long as asked (up to 120 s), and a wait for an inbound call on a line it
    // found up to 50 s: those operations use the dictionaries only.
    const noHarvest = /^\/api\/v1\/(calls\/\{id\}\/(speak|wait|press)|lines\/\{id\}\/calls\/wait)$/.test(opPath);
    const own = { 'extra-data-sources': { responses: false } };
    const tolerated = toleratedStatuses(`${method.toUpperCase()} ${opPath}`);
    return {
      'include-operation-id': operation.operationId,
      ...(tolerated ? { checks: { positive_data_acceptance: { 'expected-statuses': tolerated } } } : {}),
      // Public operations run with the standard key's runs only, once.
      enabled: kind === input.keyKind || (kind === 'public' && input.keyKind === 'standard'),
      ...(Object.keys(parameters).length ? { parameters } : {}),
      ...(noHarvest ? { phases: { coverage: own, fuzzing: own } } : {}),
    };
  });
  return stringify({
    generation: { 'max-examples': input.maxExamples, database: 'none' },
    'request-timeout': 30,
    dictionaries,
    operations,
  });
}

/** Loads switchboard_hooks.py (the `state_dependent_refusals_only` check) with the refusals it tolerates. */
function hooksEnv(): Record<string, string> {
  return {
    SCHEMATHESIS_HOOKS: 'switchboard_hooks',
    PYTHONPATH: path.join(__dirname, 'schemathesis_hooks'),
    SWITCHBOARD_STATE_REFUSALS: JSON.stringify(STATE_REFUSALS.map(({ reason: _reason, ...refusal }) => refusal)),
  };
}

export interface FuzzRunResult {
  exitCode: number | null;
  /** Holds the config; the replay command runs from it. */
  dir: string;
  output: string;
  /** The exact command line, to replay the run by hand against the same server. */
  command: string;
  durationMs: number;
}

/**
 * No 5xx; every body as documented for its status; a method a path does not serve is 405 with
 * `Allow`; a request the document allows is not refused (`positive_data_acceptance`: nothing but
 * 2xx, 3xx, 401, 403, 404, 409, 429 for schema-valid data), except for the state-dependent refusals
 * below, checked by `state_dependent_refusals_only` (test/support/schemathesis_hooks/switchboard_hooks.py).
 */
export const FUZZ_CHECKS = [
  'not_a_server_error',
  'response_schema_conformance',
  'unsupported_method',
  'positive_data_acceptance',
  'state_dependent_refusals_only',
];

/** Schemathesis' default `expected-statuses` of `positive_data_acceptance` (4.32.5, config/_checks.py). */
const POSITIVE_DATA_ACCEPTED = ['2xx', '3xx', '401', '403', '404', '409', '429', '5xx'];

/**
 * Refusals of schema-valid requests that depend on state the document cannot know: the server's
 * data, the key making the request, the network (and one on numbering-plan data, said below). Each is tolerated for `positive_data_acceptance`
 * on its operations only (its status added to their `expected-statuses`), and only with this code,
 * field and message (the hook check). Everything else the server checks is in the document.
 */
export interface StateRefusal {
  operations: string[];
  status: number;
  code: string;
  /** A regular expression the detail's field matches in full. */
  field?: string;
  /** A regular expression found in the detail's message. */
  message?: string;
  reason: string;
}
const LINE_WRITES = ['POST /api/v1/lines', 'PATCH /api/v1/lines/{id}'];
const KEY_MINTS = ['POST /api/v1/keys', 'POST /v1/keys'];
export const STATE_REFUSALS: StateRefusal[] = [
  {
    operations: [...LINE_WRITES, 'PATCH /api/v1/settings'],
    status: 422,
    code: 'validation_error',
    field: 'webhook_url|audio_handler_url|status_callback_url|default_webhook_url',
    message: 'only public addresses can be reached|in the live environment',
    reason:
      'Where a URL leads is known when the request is made (DNS, the operator’s egress allow-list), not from its text; ' +
      'http/ws is refused for live keys only, and one document serves both environments.',
  },
  {
    operations: ['PATCH /api/v1/lines/{id}'],
    status: 422,
    code: 'validation_error',
    message: '^Required when mode is',
    reason: 'An update is checked against the line as it is: the field a mode needs may be stored already, or not.',
  },
  {
    operations: ['PATCH /api/v1/lines/{id}'],
    status: 422,
    code: 'validation_error',
    field: 'system_prompt|audio_handler_url|tools',
    message: '^Not used on an agent line',
    reason:
      'An update is checked against the line as it is: a line switched to `agent` may still store a prompt, an audio URL or tools, and a ' +
      'stored agent line refuses them when the body does not change its mode (docs/decisions/calls.md, "Agent lines").',
  },
  {
    operations: ['PATCH /api/v1/settings'],
    status: 422,
    code: 'validation_error',
    field: 'calling_window\\.end',
    message: '^Must be after start$',
    reason:
      'A relation between two fields (a calling window starts before it ends), which JSON Schema cannot state; each bound is in the document.',
  },
  {
    operations: ['PATCH /api/v1/settings'],
    status: 422,
    code: 'validation_error',
    field: 'recordings\\.redaction\\.custom\\.\\d+\\.(pattern|name)',
    message:
      '^Must be a valid regular expression|^Must not use backreferences|^Must not repeat a group|^Must not match empty text|^Must not be the name of a built-in kind|^Must be unique among the custom rules',
    reason:
      'Whether a string is a regular expression that compiles, and does not backtrack catastrophically, is not a JSON Schema pattern; nor is a name unique among the rules (docs/decisions/recordings.md, "Redaction of transcripts").',
  },
  {
    operations: ['PATCH /api/v1/lines/{id}'],
    status: 400,
    code: 'hosted_mode_language_pinning_unsupported',
    reason: 'Whether `language` may be set depends on the line’s stored mode when the body does not change it.',
  },
  {
    operations: ['POST /api/v1/lines'],
    status: 422,
    code: 'number_unavailable',
    field: 'phone_number|area_code|number_type|country',
    reason:
      'What the carrier has: a number to import must be owned by the carrier account and granted to this workspace (CLI `number grant`), ' +
      'and a purchase needs numbers left under the criteria.',
  },
  {
    operations: ['POST /api/v1/lines'],
    status: 422,
    code: 'validation_error',
    field: 'area_code|phone_number',
    message: '^Not an area code of |^Must be a valid phone number in E.164|^Must be a number of a country',
    reason:
      'Numbering plans, not state: which area codes a country has per number type, and whether a number is assigned (libphonenumber’s full ' +
      'metadata) is a table far larger than a pattern; the document states the shape (digits, E.164 lengths) and names the refusal.',
  },
  {
    operations: ['POST /api/v1/lines'],
    status: 402,
    code: 'payment_method_required',
    reason: 'Whether the workspace has a payment method and already has a live line.',
  },
  {
    operations: ['POST /api/v1/calls', 'POST /api/v1/calls/conversation'],
    status: 422,
    code: 'line_no_webhook',
    reason:
      'The line as it is stored: a fuzzed update earlier in the run may have cleared the fixture line’s webhook_url (a webhook line ' +
      'may lose it), and a call needs one (found by the fresh seed 797152641).',
  },
  {
    operations: ['POST /api/v1/calls', 'POST /api/v1/calls/conversation'],
    status: 422,
    code: 'validation_error',
    field: 'variables\\..+',
    message: "^Used by the call's |^Not used by the call’s ",
    reason: 'The placeholders of the line’s system_prompt and begin_message (or the request’s topic): `variables` must match them exactly.',
  },
  {
    operations: [...LINE_WRITES, 'POST /api/v1/calls', 'POST /api/v1/calls/conversation'],
    status: 422,
    code: 'validation_error',
    field: 'tools\\.\\d+\\.(url|parameters(\\..+)?|name|type|destinations\\.\\d+)',
    message:
      'only public addresses can be reached|in the live environment|^Not a valid JSON Schema: |^Must be at most \\d+ bytes of JSON$|^Declared twice: |is a built-in tool|^Must be a phone number in E\\.164|^Must not contain the NUL character',
    reason:
      'Beyond what a document states: where a tool’s URL leads (as for webhook_url), whether `parameters` is a valid JSON Schema (the 2020-12 ' +
      'metaschema) within its size, names unique across the list, and whether a destination is an assigned number (libphonenumber).',
  },
  {
    operations: ['POST /api/v1/calls/{id}/transfer'],
    status: 422,
    code: 'validation_error',
    field: 'to_number',
    message: '^Must not be a party of the call$',
    reason: 'The call’s own from and to numbers, known from the call.',
  },
  {
    operations: KEY_MINTS,
    status: 422,
    code: 'validation_error',
    field: 'environment',
    message: 'the environment of this service key$',
    reason: 'The environment of the service key making the request.',
  },
  {
    operations: ['POST /api/v1/campaigns'],
    status: 422,
    code: 'validation_error',
    field: 'line_ids\\.\\d+',
    message: '^No line with this id that this key may use',
    reason: 'Line ids that exist in the workspace and environment, active, and usable by the key (a line-bound key names its own).',
  },
  {
    operations: ['POST /api/v1/campaigns'],
    status: 422,
    code: 'validation_error',
    field: 'max_concurrency|calls_per_minute',
    message: '^At most the number of lines in line_ids|^At most \\d+: the workspace',
    reason:
      'A bound set by another field (one call per line of the pool, so no more at once than `line_ids` holds), which JSON Schema cannot ' +
      'state; and the pace the workspace’s other running campaigns leave of its 600 calls a minute.',
  },
  {
    operations: ['POST /api/v1/campaigns'],
    status: 422,
    code: 'validation_error',
    field: 'contact_list_id',
    message: '^No contact list with this id',
    reason: 'A contact list uploaded by this workspace and environment (POST /api/v1/campaigns/contact-lists) that has not expired.',
  },
  {
    operations: ['POST /api/v1/campaigns/contact-lists'],
    status: 422,
    code: 'validation_error',
    field: 'body|columns(\\.\\d+)?|rows(\\.\\d+(\\..+)?)?',
    reason:
      'The CSV’s own rules, beyond a JSON Schema of a string: a header naming phone_number and variables, rows with as many fields as ' +
      'the header, cells within their lengths, RFC 4180 quoting and UTF-8 (its description says them; the refusal names the row and column).',
  },
  {
    operations: ['POST /api/v1/legal-holds'],
    status: 422,
    code: 'validation_error',
    field: 'call_id|phone_number',
    message: '^Name exactly one of call_id and phone_number$|^Must be a valid phone number',
    reason:
      'A hold names one subject: exactly one of two optional fields (a relation the document states in words, as the calling window’s order); ' +
      'and whether a number is assigned (libphonenumber), as for the other phone fields.',
  },
  {
    operations: ['GET /api/v1/calls/{id}/recording'],
    status: 416,
    code: 'range_not_satisfiable',
    reason: 'Where a recording ends is its size, known once it is stored (the 416 answers it in `Content-Range`).',
  },
  {
    operations: ['GET /api/v1/calls/{id}/recording'],
    status: 503,
    code: 'service_unavailable',
    reason: 'Whether the recordings store or the carrier can hand a recording over right now (the fixtures’ carrier is the simulator).',
  },
  {
    operations: ['POST /api-tokens'],
    status: 422,
    code: 'validation_error',
    field: 'grant\\.resources\\.numbers',
    message: '^Unknown lines: ',
    reason: 'Line ids that exist in the workspace and environment.',
  },
];

/** The `[[operations]]` overrides of `positive_data_acceptance` that STATE_REFUSALS asks for. */
function toleratedStatuses(label: string): string[] | undefined {
  const statuses = STATE_REFUSALS.filter((refusal) => refusal.operations.includes(label)).map((refusal) => String(refusal.status));
  return statuses.length > 0 ? [...new Set([...POSITIVE_DATA_ACCEPTED, ...statuses])] : undefined;
}

/**
 * One schemathesis run. Phases are coverage and fuzzing only: the stateful phase chains responses
 * into requests and so revokes its own key (GET /api-tokens lists it, POST /api-tokens/{id}/revoke
 * accepts it), which ends the run early. One worker: the generator's use of Python 3.11's AST
 * parser is not thread-safe ("AST constructor recursion depth mismatch").
 */
export async function runSchemathesis(input: {
  executable: string;
  apiUrl: string;
  key: string;
  seed: number;
  config: string;
  phases: Array<'coverage' | 'fuzzing'>;
  workers: number;
}): Promise<FuzzRunResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemathesis-'));
  const configFile = path.join(dir, 'schemathesis.toml');
  fs.writeFileSync(configFile, input.config);
  const args = [
    '--config-file',
    configFile,
    'run',
    `${input.apiUrl}/api/openapi.yaml`,
    '--url',
    input.apiUrl,
    '--header',
    `Authorization: Bearer ${input.key}`,
    '--checks',
    FUZZ_CHECKS.join(','),
    '--phases',
    input.phases.join(','),
    '--seed',
    String(input.seed),
    '--workers',
    String(input.workers),
    '--no-color',
    '--output-sanitize',
    'false',
  ];
  const started = Date.now();
  const { exitCode, output } = await new Promise<{ exitCode: number | null; output: string }>((resolve, reject) => {
    const child = spawn(input.executable, args, { cwd: dir, env: { ...process.env, ...hooksEnv() } });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ exitCode: code, output: text }));
  });
  const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);
  const env = Object.entries(hooksEnv()).map(([name, value]) => `${name}=${quote(value)}`);
  const command = `cd ${dir} && ${[...env, input.executable, ...args].map((arg, i) => (i < env.length ? arg : quote(arg))).join(' ')}`;
  return { exitCode, dir, output, command, durationMs: Date.now() - started };
}

/**
 * What a failing test shows: an index of the failing operations with their distinct failures
 * (each kind once, with a count), then the start of schemathesis' own report (requests as curl).
 */
export function failureReport(output: string, detailChars = 12_000): string {
  const start = output.search(/^=+ (ERRORS|FAILURES) =+$/m);
  const report = start >= 0 ? output.slice(start) : output;
  const index = new Map<string, Map<string, number>>();
  let operation = '';
  for (const line of report.split('\n')) {
    const heading = /^_{3,} ([A-Z]+ \S+) _{3,}$/.exec(line.trim());
    if (heading) operation = heading[1];
    const failure = /^- (ST\d+ .+)$/.exec(line.trim()) ?? /^(Runtime Error|Network Error)$/.exec(line.trim());
    if (operation && failure) {
      const kinds = index.get(operation) ?? new Map<string, number>();
      kinds.set(failure[1], (kinds.get(failure[1]) ?? 0) + 1);
      index.set(operation, kinds);
    }
  }
  const lines = [...index].map(
    ([op, kinds]) => `  ${op}: ${[...kinds].map(([kind, count]) => (count > 1 ? `${kind} (x${count})` : kind)).join('; ')}`,
  );
  const summary = /=+ SUMMARY =+[\s\S]*$/.exec(output)?.[0] ?? '';
  return [
    `Failing operations (${index.size}):`,
    ...lines,
    '',
    report.slice(0, detailChars),
    report.length > detailChars ? '[...]' : '',
    summary,
  ].join('\n');
}
