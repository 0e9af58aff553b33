/**
 * Per-call variables and metadata (issue 29), pure.
 *
 * `variables` fill `{{name}}` placeholders of the call's system prompt and begin message, as Retell's
 * dynamic variables and Vapi's variable values do. A call placed with `variables` must use each of
 * them and fill every placeholder its texts hold, so a typo in either is refused before anyone is
 * dialled; a call without `variables` uses the texts as written (inbound calls, and every call
 * placed before variables existed).
 *
 * `metadata` is Stripe's: at most 50 keys of up to 40 characters (no square brackets), string
 * values of up to 500 characters. It is stored on the call and echoed in every event of the call.
 */

/** A variable's name, as a placeholder writes it: `{{first_name}}`. */
export const VARIABLE_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
export const MAX_VARIABLES = 50;
export const MAX_VARIABLE_VALUE_LENGTH = 1_000;

export const MAX_METADATA_KEYS = 50;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_VALUE_LENGTH = 500;
/** Stripe's rule: keys hold no square brackets (they would read as nested form fields); nor U+0000, which Postgres cannot store. */
export const METADATA_KEY_PATTERN = '^[^\\[\\]\\u0000]+$';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

/** The texts a call speaks or is instructed by, as the API names them. */
export interface CallTexts {
  system_prompt: string | null;
  begin_message: string | null;
}

export type Filling = { ok: true; texts: CallTexts } | { ok: false; field: string; message: string };

/** The placeholder names a text holds, in order of first use. */
export function placeholdersIn(text: string | null): string[] {
  if (!text) return [];
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]))];
}

/**
 * The call's texts with its variables filled in, or the first problem: a variable no text uses,
 * or a placeholder left without a value (named as the request field `variables.<name>`).
 */
export function fillVariables(texts: CallTexts, variables: Readonly<Record<string, string>> | undefined): Filling {
  if (variables === undefined) return { ok: true, texts };
  const fields = Object.keys(texts) as Array<keyof CallTexts>;
  for (const field of fields)
    for (const name of placeholdersIn(texts[field]))
      if (!Object.hasOwn(variables, name))
        return { ok: false, field: `variables.${name}`, message: `Used by the call's ${field}; give it a value` };
  const used = new Set(fields.flatMap((field) => placeholdersIn(texts[field])));
  for (const name of Object.keys(variables))
    if (!used.has(name)) return { ok: false, field: `variables.${name}`, message: 'Not used by the call’s system_prompt or begin_message' };
  const fill = (text: string | null) => text?.replace(PLACEHOLDER, (_, name: string) => variables[name]) ?? null;
  return { ok: true, texts: { system_prompt: fill(texts.system_prompt), begin_message: fill(texts.begin_message) } };
}
