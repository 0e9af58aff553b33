/*
 * What a workspace's environment redacts from its transcripts (issue 32 item 5; `recordings.redaction` in
 * `GET/PATCH /api/v1/settings`; docs/decisions/recordings.md "Redaction"), and which custom rules are refused: pure.
 */

/** The kinds of personal data Switchboard knows how to find (src/domain/recordings/redaction.ts). */
export const REDACTION_KINDS = ['card_number', 'us_ssn', 'email', 'phone_number'] as const;
export type BuiltInRedactionKind = (typeof REDACTION_KINDS)[number];

/** An operator's own rule: text matching `pattern` (a JavaScript regular expression, `u` flag) becomes `[REDACTED:<name>]`. */
export interface CustomRedactionRule {
  name: string;
  pattern: string;
}

export interface RedactionSettings {
  /** The built-in kinds redacted; none by default. */
  kinds: BuiltInRedactionKind[];
  /** The operator's own rules, checked when set (`customPatternProblem`). */
  custom: CustomRedactionRule[];
  /** Also redact the caller's words (and the agent's cut-off reply) in the webhook events that carry them. */
  webhooks: boolean;
}

export const DEFAULT_REDACTION: RedactionSettings = { kinds: [], custom: [], webhooks: false };

/** The longest custom pattern, and the most custom rules, accepted. */
export const CUSTOM_PATTERN_MAX_LENGTH = 200;
export const CUSTOM_RULES_MAX = 20;
/** A custom rule's name: it is the kind its redactions are recorded under, and in its marker. */
export const CUSTOM_RULE_NAME_PATTERN = '^[a-z][a-z0-9_]{0,39}$';

/** Whether anything is redacted at all. */
export const redactionOn = (settings: RedactionSettings): boolean => settings.kinds.length > 0 || settings.custom.length > 0;

/** The settings as stored (a JSON object that may lack fields, or predate them), with their defaults. */
export function redactionSettingsOf(stored: unknown): RedactionSettings {
  if (!stored || typeof stored !== 'object') return DEFAULT_REDACTION;
  const value = stored as Partial<Record<keyof RedactionSettings, unknown>>;
  const kinds = Array.isArray(value.kinds)
    ? REDACTION_KINDS.filter((kind) => (value.kinds as unknown[]).includes(kind))
    : DEFAULT_REDACTION.kinds;
  const custom = Array.isArray(value.custom)
    ? (value.custom as unknown[]).filter(
        (rule): rule is CustomRedactionRule =>
          !!rule &&
          typeof (rule as CustomRedactionRule).name === 'string' &&
          typeof (rule as CustomRedactionRule).pattern === 'string' &&
          customPatternProblem((rule as CustomRedactionRule).pattern) === undefined,
      )
    : DEFAULT_REDACTION.custom;
  return { kinds, custom: custom.map(({ name, pattern }) => ({ name, pattern })), webhooks: value.webhooks === true };
}

/**
 * Why a custom pattern is refused, or undefined when it is accepted. JavaScript has no time limit on a regular
 * expression and no safe-regex library is a dependency, so the rule is syntactic and documented
 * (docs/decisions/recordings.md "Redaction"): at most 200 characters; it compiles with the `u` flag; no
 * backreference (`\1`, `\k<name>`: matching them is NP-hard); no group that holds an unbounded quantifier (`*`, `+`,
 * `{n,}`) repeated itself (`*`, `+`, `{…}`): the nested quantifiers of catastrophic backtracking, `(a+)+`,
 * `(\d*)*`, `(?:x+y?){2,}`; and it must not match empty text.
 */
export function customPatternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'Must not be empty';
  if (pattern.length > CUSTOM_PATTERN_MAX_LENGTH) return `Must be at most ${CUSTOM_PATTERN_MAX_LENGTH} characters`;
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, 'u');
  } catch (err) {
    return `Must be a valid regular expression (${(err as Error).message})`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'Must not use backreferences';
  if (hasNestedQuantifier(pattern))
    return 'Must not repeat a group that holds an unbounded quantifier (nested quantifiers backtrack catastrophically)';
  if (new RegExp(`^(?:${compiled.source})$`, 'u').test('')) return 'Must not match empty text';
  return undefined;
}

/**
 * True when a group holding an unbounded quantifier is itself quantified by `*`, `+` or `{…}`. Escapes and
 * character classes are skipped; a pattern that compiled with the `u` flag is all this walks.
 */
function hasNestedQuantifier(pattern: string): boolean {
  /** For each open group: whether it holds an unbounded quantifier so far. */
  const open: boolean[] = [];
  let i = 0;
  const unboundedAt = (at: number): number => {
    // The length of an unbounded quantifier at `at` (`*`, `+`, `{n,}`), else 0.
    const c = pattern[at];
    if (c === '*' || c === '+') return 1;
    const brace = /^\{\d+,\}/.exec(pattern.slice(at));
    return brace ? brace[0].length : 0;
  };
  const repeatedAt = (at: number): boolean => {
    const c = pattern[at];
    return c === '*' || c === '+' || (c === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(at)));
  };
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '[') {
      i += 1;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i += 1;
      continue;
    }
    if (c === '(') {
      open.push(false);
      i += 1;
      continue;
    }
    if (c === ')') {
      const heldUnbounded = open.pop() ?? false;
      i += 1;
      if (heldUnbounded && repeatedAt(i)) return true;
      if (heldUnbounded && open.length > 0) open[open.length - 1] = true;
      continue;
    }
    const unbounded = unboundedAt(i);
    if (unbounded > 0) {
      if (open.length > 0) open[open.length - 1] = true;
      i += unbounded;
      continue;
    }
    i += 1;
  }
  return false;
}

/**
 * What is wrong with `recordings.redaction` as given in a PATCH, field by field (the shape is the OpenAPI schema's;
 * this is what a schema cannot say): each custom pattern accepted by `customPatternProblem`, names unique and none a
 * built-in kind's.
 */
export function redactionProblems(value: unknown): Array<{ field: string; message: string }> {
  if (!value || typeof value !== 'object') return [];
  const custom = (value as { custom?: unknown }).custom;
  if (!Array.isArray(custom)) return [];
  const problems: Array<{ field: string; message: string }> = [];
  const seen = new Set<string>();
  custom.forEach((rule: Partial<CustomRedactionRule>, index) => {
    const at = `recordings.redaction.custom.${index}`;
    if (typeof rule?.pattern === 'string') {
      const problem = customPatternProblem(rule.pattern);
      if (problem) problems.push({ field: `${at}.pattern`, message: problem });
    }
    if (typeof rule?.name === 'string') {
      if ((REDACTION_KINDS as readonly string[]).includes(rule.name))
        problems.push({ field: `${at}.name`, message: 'Must not be the name of a built-in kind' });
      else if (seen.has(rule.name)) problems.push({ field: `${at}.name`, message: 'Must be unique among the custom rules' });
      seen.add(rule.name);
    }
  });
  return problems;
}
