/*
 * The fixed vocabulary and bounds of tools (issue 29), apart from ./rules.ts so the call workflow
 * can use them without loading a schema compiler.
 */

/** The built-in tools' names (each its declaration's `type`). */
export const BUILT_IN_TOOLS = ['transfer_call', 'hang_up', 'send_sms', 'press_digits'] as const;
export type BuiltInToolType = (typeof BUILT_IN_TOOLS)[number];

export function isBuiltInName(name: string): name is BuiltInToolType {
  return (BUILT_IN_TOOLS as readonly string[]).includes(name);
}

/** Bounds of a declaration: a model offered dozens of tools chooses badly, and each is sent on every turn. */
export const TOOL_LIMITS = {
  maxTools: 16,
  /** OpenAI's function-name rule. */
  namePattern: /^[a-zA-Z0-9_-]{1,64}$/,
  maxDescriptionChars: 1_000,
  maxParametersBytes: 8 * 1024,
  maxDestinations: 10,
  /** A caller waits in silence while a tool runs: 5 s by default, 20 s at most. */
  defaultTimeoutMs: 5_000,
  minTimeoutMs: 500,
  maxTimeoutMs: 20_000,
  /** The most of an endpoint's answer given to the model; a longer answer is an error result. */
  maxResultBytes: 16 * 1024,
  /** Tool calls of one model reply, and model rounds of one caller turn: a model looping on tools cannot hold the call. */
  maxCallsPerReply: 5,
  maxRoundsPerTurn: 4,
  /** The longest arguments a model may send one tool. */
  maxArgumentsChars: 8 * 1024,
} as const;

/** The model's arguments as an object, or why they cannot be read (the model gets that as its result). */
export function parseArguments(raw: string): { ok: true; value: Record<string, unknown> } | { ok: false; problem: string } {
  if (raw.length > TOOL_LIMITS.maxArgumentsChars)
    return { ok: false, problem: `arguments over ${TOOL_LIMITS.maxArgumentsChars} characters` };
  try {
    const value: unknown = JSON.parse(raw === '' ? '{}' : raw);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
  } catch {
    // Told to the model below.
  }
  return { ok: false, problem: 'arguments must be a JSON object' };
}
