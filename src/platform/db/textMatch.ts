/**
 * An `ILIKE ... escape '\'` pattern matching text that contains `typed` as typed: its `\`, `%` and `_` are escaped, so
 * a search box can never send a wildcard (`50%` finds "50%", not everything starting with "50").
 */
export function containingPattern(typed: string): string {
  return `%${typed.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
