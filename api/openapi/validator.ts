import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type Koa from 'koa';
import type { AppState } from '../context';
import { ApiError, errors, type ErrorDetail } from '../errors';
import type { OperationDoc, PathParameter } from '../routeTable';
import { inlineRefs, withRequestRules } from './document';
import { httpUrl, NOT_BLANK_PATTERN, VOICE_PATTERN, wsUrl } from './fields';
import { boundIntegers, NO_NUL_PATTERN, registerStrictFormats } from './formats';
import { E164_PATTERN } from '../../src/platform/phone';

/**
 * Request validation driven by the served OpenAPI document: each operation's body and
 * query schemas are compiled once with ajv (on the operation's first request, so a process
 * compiles only what it serves), and a failure becomes 422 `validation_error` with one
 * `{field, message}` per problem.
 */
export function newAjv(coerce: boolean): Ajv2020 {
  // verbose: errors carry their parent schema, where an `x-refusal` names the error a rule answers with.
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: coerce, useDefaults: coerce, verbose: true });
  addFormats(ajv);
  registerStrictFormats(ajv);
  return ajv;
}

const bodyAjv = newAjv(false);
const queryAjv = newAjv(true);

/** What a customer is told when a shared pattern (fields.ts, formats.ts) refuses a value. */
const PATTERN_MESSAGES = new Map<string, string>([
  [NOT_BLANK_PATTERN, 'Must not be blank'],
  [NO_NUL_PATTERN, 'Must not contain the NUL character (U+0000)'],
  [E164_PATTERN, 'Must be a phone number in E.164 (+14155550123) with a length its country code allows'],
  [httpUrl.pattern as string, 'Must be an http or https URL'],
  [wsUrl.pattern as string, 'Must be a ws or wss URL'],
  [VOICE_PATTERN, 'Unknown voice; see GET /api/v1/voices'],
]);

function fieldOf(error: ErrorObject, prefix: string): string {
  const path = error.instancePath.split('/').filter(Boolean).join('.');
  const extra =
    error.keyword === 'required'
      ? (error.params as { missingProperty: string }).missingProperty
      : error.keyword === 'additionalProperties'
        ? (error.params as { additionalProperty: string }).additionalProperty
        : '';
  const field = [path, extra].filter(Boolean).join('.');
  return field || prefix;
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'Required';
    case 'additionalProperties':
      return 'Unknown field';
    case 'type': {
      const own = (error.parentSchema as { 'x-type-message'?: string } | undefined)?.['x-type-message'];
      if (own) return own;
      const expected = (error.params as { type: string | string[] }).type;
      return `Must be ${Array.isArray(expected) ? expected.join(' or ') : expected.split(',').join(' or ')}`;
    }
    case 'enum':
      return `Must be one of: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'not':
      return (error.parentSchema as { 'x-refusal'?: { message: string } } | undefined)?.['x-refusal']?.message ?? 'Not allowed here';
    case 'false schema':
      return 'Not with the other fields of this request (see its description)';
    case 'pattern': {
      const pattern = (error.params as { pattern: string }).pattern;
      const own = (error.parentSchema as { 'x-pattern-message'?: string } | undefined)?.['x-pattern-message'];
      return own ?? PATTERN_MESSAGES.get(pattern) ?? `Must match ${pattern}`;
    }
    default: {
      const text = error.message ?? 'Invalid value';
      return text.charAt(0).toUpperCase() + text.slice(1);
    }
  }
}

export function toDetails(validate: ValidateFunction, prefix: string): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const error of validate.errors ?? []) {
    // `oneOf`/`anyOf` summaries repeat what their branches already said.
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf' || error.keyword === 'if') continue;
    const detail = { field: fieldOf(error, prefix), message: messageOf(error) };
    const id = `${detail.field}|${detail.message}`;
    if (!seen.has(id)) {
      seen.add(id);
      details.push(detail);
    }
  }
  return details;
}

const compiledBodies = new WeakMap<object, ValidateFunction>();

/** What the API's request validation finds wrong in `body` under `schema`: a portal form is checked as its API route checks it. */
export function bodyProblems(schema: object, body: unknown): ErrorDetail[] {
  let validate = compiledBodies.get(schema);
  if (!validate) {
    // A component may refer to others (`$ref`), which a schema compiled on its own cannot resolve.
    validate = bodyAjv.compile(inlineRefs(schema));
    compiledBodies.set(schema, validate);
  }
  return validate(body) ? [] : toDetails(validate, 'body');
}

/** The compiled checks of one operation's path, query and body. */
export interface OperationValidators {
  pathParams: PathParameter[];
  /** The operation declares no query parameter (an empty query string then has nothing to check or default). */
  noQueryParams: boolean;
  validatePath: ValidateFunction;
  validateQuery: ValidateFunction;
  bodySpec: OperationDoc['requestBody'];
  validateBody?: ValidateFunction;
}

export function compileOperation(operation: OperationDoc): OperationValidators {
  const op = boundIntegers(withRequestRules(inlineRefs(operation)));
  const queryParams = (op.parameters ?? []).filter((p) => p.in === 'query');
  const pathParams = (op.parameters ?? []).filter((p): p is PathParameter => p.in === 'path');
  const querySchema = {
    type: 'object',
    properties: Object.fromEntries(queryParams.map((p) => [p.name, p.schema])),
    required: queryParams.filter((p) => p.required).map((p) => p.name),
  };
  const pathSchema = {
    type: 'object',
    properties: Object.fromEntries(pathParams.map((p) => [p.name, p.schema])),
    required: pathParams.map((p) => p.name),
  };
  const bodySpec = op.requestBody;
  return {
    pathParams,
    noQueryParams: queryParams.length === 0,
    validatePath: bodyAjv.compile(pathSchema),
    validateQuery: queryAjv.compile(querySchema),
    bodySpec,
    validateBody: bodySpec ? bodyAjv.compile(bodySpec.content['application/json'].schema) : undefined,
  };
}

export function validateRequest(operation: OperationDoc): Koa.Middleware<AppState> {
  // Compiled once, on the first request: the document is fixed for the life of the process.
  let compiled: OperationValidators | undefined;
  // Not an async function: it awaits nothing, and koa-compose turns what it throws into the chain's rejection.
  return (ctx, next) => {
    const { pathParams, noQueryParams, validatePath, validateQuery, bodySpec, validateBody } = (compiled ??= compileOperation(operation));
    const params = (ctx as unknown as { params: Record<string, string> }).params ?? {};
    // An id that cannot exist is simply not found: no hint about the id format of other tenants.
    if (!validatePath(params)) throw pathNotFound(pathParams, validatePath.errors);
    if (noQueryParams && ctx.querystring === '') {
      // Nothing to parse, check or default (most GETs of one resource).
      ctx.state.query = {};
    } else {
      const query: Record<string, unknown> = { ...ctx.query };
      if (!validateQuery(query)) throw errors.validation(toDetails(validateQuery, 'query'));
      refuseNulCharacters(query);
      ctx.state.query = query;
    }

    if (validateBody) {
      if (ctx.state.body === undefined) {
        if (bodySpec?.required) throw errors.validation([{ field: 'body', message: 'A JSON request body is required' }]);
      } else if (!validateBody(ctx.state.body)) {
        throw ownRefusalOf(validateBody.errors) ?? errors.validation(toDetails(validateBody, 'body'));
      }
      refuseNulCharacters(ctx.state.body);
    } else if (ctx.state.body !== undefined && !isEmptyObject(ctx.state.body)) {
      throw new ApiError(422, 'validation_error', 'This endpoint takes no request body', [{ field: 'body', message: 'Must be empty' }]);
    }
    return next();
  };
}

/**
 * A rule whose refusal has its own code in the interface (a schema with `x-refusal`: `{status, code,
 * message}`) answers with it rather than with `validation_error`.
 */
function ownRefusalOf(problems: ErrorObject[] | null | undefined): ApiError | undefined {
  for (const problem of problems ?? []) {
    const refusal = (problem.parentSchema as { 'x-refusal'?: { status: number; code: string; message: string } } | undefined)?.[
      'x-refusal'
    ];
    if (refusal && problem.keyword === 'not') return new ApiError(refusal.status, refusal.code, refusal.message);
  }
  return undefined;
}

/** The 404 of a path parameter that cannot name a resource: the parameter's own (`x-not-found`), as for an unknown id. */
function pathNotFound(pathParams: PathParameter[], problems: ErrorObject[] | null | undefined): ApiError {
  const failing = new Set(
    (problems ?? []).map(
      (problem) => problem.instancePath.split('/')[1] ?? (problem.params as { missingProperty?: string }).missingProperty,
    ),
  );
  const notFound = pathParams.find((param) => failing.has(param.name))?.['x-not-found'];
  return notFound ? new ApiError(404, notFound.code, notFound.message) : errors.notFound();
}

/** A key as a field name: control characters written as JSON escapes, so the name reads on one line. */
const readableKey = (key: string) =>
  [...key].some((char) => char.charCodeAt(0) < 0x20 || char === '\u007f') ? JSON.stringify(key).slice(1, -1) : key;

/**
 * Postgres text cannot hold U+0000, so a string carrying it would fail in the database (a 500):
 * it is refused here, on every query and body field, with the field named.
 */
function refuseNulCharacters(value: unknown): void {
  const found: ErrorDetail[] = [];
  const walk = (item: unknown, at: string) => {
    if (typeof item === 'string') {
      if (item.includes('\u0000')) found.push({ field: at || 'body', message: 'Must not contain the NUL character (U+0000)' });
    } else if (Array.isArray(item)) {
      item.forEach((entry, index) => walk(entry, at ? `${at}.${index}` : String(index)));
    } else if (item && typeof item === 'object') {
      for (const [key, entry] of Object.entries(item)) {
        const field = at ? `${at}.${readableKey(key)}` : readableKey(key);
        // A key of a free-form object (a tool's `parameters`, `metadata`) is stored too.
        if (key.includes('\u0000')) found.push({ field, message: 'Must not contain the NUL character (U+0000), in a key' });
        walk(entry, field);
      }
    }
  };
  walk(value, '');
  if (found.length > 0) throw errors.validation(found);
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
