import Ajv2020 from 'ajv/dist/2020';
import { DTMF_DIGITS } from '../../../workflows/definitions/callControl';
import { toE164 } from '../../platform/phone';
import type { Config } from '../../platform/config';
import { egressPolicyFor } from '../../platform/net/egress';
import type { Environment } from '../keys/format';
import { hasScheme } from '../lines/rules';
import { BUILT_IN_TOOLS, isBuiltInName, parseArguments, TOOL_LIMITS, type BuiltInToolType } from './rules';

export { parseArguments };

/**
 * Tools during hosted calls (issue 29, item 3; docs/decisions/calls.md "Tools during hosted calls"):
 * what a line or a call may declare, and how each is offered to the model. A `function` tool is
 * the customer's HTTPS endpoint; the built-ins act on the call itself under the API's rules.
 */

export { BUILT_IN_TOOLS, TOOL_LIMITS, type BuiltInToolType };
export const TOOL_TYPES = ['function', ...BUILT_IN_TOOLS] as const;
export type ToolType = (typeof TOOL_TYPES)[number];

/** A customer's endpoint: the model sees its name, description and parameters; Switchboard POSTs the arguments to `url`. */
export interface FunctionTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  url: string;
  timeout_ms?: number;
}

/** A built-in: optional wording for the model; `transfer_call` names the numbers it may transfer to. */
export interface BuiltInTool {
  type: BuiltInToolType;
  description?: string;
  destinations?: string[];
}

export type ToolDeclaration = FunctionTool | BuiltInTool;

export interface ToolProblem {
  field: string;
  message: string;
}

/** The function the model is offered for each declaration (chat-completions `tools[].function`). */
export interface OfferedFunction {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What each built-in says to the model, and the arguments it takes. */
const BUILT_IN_FUNCTIONS: Record<BuiltInToolType, (tool: BuiltInTool) => Omit<OfferedFunction, 'name'>> = {
  transfer_call: (tool) => ({
    description: 'Transfers the caller to a person at one of the numbers given. Say so before you call it.',
    parameters: {
      type: 'object',
      properties: { destination: { type: 'string', enum: tool.destinations ?? [], description: 'The number to transfer to' } },
      required: ['destination'],
      additionalProperties: false,
    },
  }),
  hang_up: () => ({
    description: 'Ends the call once what you said has been played. Say goodbye first.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  }),
  send_sms: () => ({
    description: 'Sends a text message to the caller’s number from this line (a link, a confirmation).',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, maxLength: 1600, description: 'The message' } },
      required: ['text'],
      additionalProperties: false,
    },
  }),
  press_digits: () => ({
    description: 'Presses keys on the phone keypad (an automated menu asks for them): digits, * and #; w waits half a second.',
    parameters: {
      type: 'object',
      properties: { digits: { type: 'string', pattern: DTMF_DIGITS.source, description: 'The keys, in order' } },
      required: ['digits'],
      additionalProperties: false,
    },
  }),
};

/** The name the model calls a declaration by: its own for a function, the type for a built-in. */
export function toolName(tool: ToolDeclaration): string {
  return tool.type === 'function' ? (tool as FunctionTool).name : tool.type;
}

export function isBuiltIn(tool: ToolDeclaration): tool is BuiltInTool {
  return tool.type !== 'function';
}

export function offeredFunction(tool: ToolDeclaration): OfferedFunction {
  if (!isBuiltIn(tool)) return { name: tool.name, description: tool.description, parameters: tool.parameters };
  const builtIn = BUILT_IN_FUNCTIONS[tool.type](tool);
  return { name: tool.type, ...builtIn, description: tool.description ?? builtIn.description };
}

/** Compiles JSON Schemas (draft 2020-12, as the API's own) without formats' strictness: a customer's schema is checked, not enforced by us. */
const schemaAjv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

/**
 * The problems of a declaration list beyond its JSON shape (the OpenAPI schema checks types and
 * required fields): each `parameters` a valid JSON Schema of an object, within its size; names
 * unique and not a built-in's; a built-in at most once; `url` http(s) (the egress check follows);
 * `transfer_call`'s destinations in E.164.
 */
export function toolProblems(tools: readonly ToolDeclaration[]): ToolProblem[] {
  const problems: ToolProblem[] = [];
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const at = (field: string) => `tools.${index}.${field}`;
    const name = toolName(tool);
    if (seen.has(name)) problems.push({ field: at(isBuiltIn(tool) ? 'type' : 'name'), message: `Declared twice: ${name}` });
    seen.add(name);
    if (isBuiltIn(tool)) {
      if (tool.type === 'transfer_call') {
        (tool.destinations ?? []).forEach((number, n) => {
          if (toE164(number) !== number)
            problems.push({ field: at(`destinations.${n}`), message: 'Must be a phone number in E.164 (+14155550123)' });
        });
      }
      return;
    }
    if (isBuiltInName(tool.name))
      problems.push({ field: at('name'), message: `${tool.name} is a built-in tool's name: declare it as {"type": "${tool.name}"}` });
    if (!hasScheme(tool.url, ['http:', 'https:'])) problems.push({ field: at('url'), message: 'Must be an http or https URL' });
    problems.push(...parametersProblems(tool.parameters).map((message) => ({ field: at('parameters'), message })));
  });
  return problems;
}

function parametersProblems(parameters: Record<string, unknown>): string[] {
  if (Buffer.byteLength(JSON.stringify(parameters)) > TOOL_LIMITS.maxParametersBytes)
    return [`Must be at most ${TOOL_LIMITS.maxParametersBytes} bytes of JSON`];
  if (parameters.type !== 'object') return ['Must be a JSON Schema of an object ("type": "object")'];
  try {
    schemaAjv.compile(parameters);
    return [];
  } catch (err) {
    return [`Not a valid JSON Schema: ${(err as Error).message}`.slice(0, 300)];
  }
}

/** The arguments a model sent a function tool, checked against its schema: null when they fit, else why not (told to the model). */
export function argumentsProblem(tool: FunctionTool, args: unknown): string | null {
  const validate = schemaAjv.compile(tool.parameters);
  if (validate(args)) return null;
  return (validate.errors ?? [])
    .slice(0, 3)
    .map((error) => `${error.instancePath || 'arguments'} ${error.message ?? 'is invalid'}`)
    .join('; ');
}

/** The declaration the model called, by name (null for a name that was not offered). */
export function declaredTool(tools: readonly ToolDeclaration[], name: string): ToolDeclaration | null {
  return tools.find((tool) => toolName(tool) === name) ?? null;
}

/** A function tool's time budget. */
export function toolTimeoutMs(tool: FunctionTool): number {
  return tool.timeout_ms ?? TOOL_LIMITS.defaultTimeoutMs;
}

/**
 * Everything wrong with a `tools` list a line or a call is given: its rules (./rules.ts), then each
 * endpoint's address, as for a webhook URL (public addresses only, https for live lines; checked
 * again on every call of the tool).
 */
export async function toolDeclarationProblems(
  config: Config,
  environment: Environment,
  tools: readonly ToolDeclaration[] | null | undefined,
): Promise<ToolProblem[]> {
  if (!tools || tools.length === 0) return [];
  const problems = toolProblems(tools);
  if (problems.length > 0) return problems;
  const urls = Object.fromEntries(tools.flatMap((tool, index) => (isBuiltIn(tool) ? [] : [[`tools.${index}.url`, tool.url]])));
  return egressPolicyFor(config).fieldProblems(urls, environment);
}
