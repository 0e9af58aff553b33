/**
 * The operator smoke kit's runner (`npm run smoke -- <provider>`): what a provider's kit is made
 * of, and how its checks run. A kit names the settings it needs, opens a session (lines, the
 * local receiver, provider clients), runs its checks one after another, each within its own
 * budget, and closes the session whatever happened. A check passes with a line saying what it
 * saw, or fails or is skipped with the reason; nothing here ever passes a check by default.
 */

/** A setting the run needs: an environment variable and what it is for. */
export interface Setting {
  name: string;
  what: string;
}

export type Verdict = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  id: string;
  title: string;
  verdict: Verdict;
  why: string;
  ms: number;
}

/** A check that cannot pass: thrown with what was seen instead. */
export class CheckFailed extends Error {}

/** A check that could not be run here (it needs hardware, a permission, a provider behaviour that cannot be provoked). */
export class CheckSkipped extends Error {}

/**
 * The run cannot start: a setting is missing, or something it needs (the API, the receiver's
 * public URL, the provider's credentials) does not answer. Nothing has been created yet.
 */
export class RunRefused extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

export const fail = (why: string): never => {
  throw new CheckFailed(why);
};

export const skip = (why: string): never => {
  throw new CheckSkipped(why);
};

/** Fails with `why` unless `condition` holds. */
export function expectThat(condition: unknown, why: string): asserts condition {
  if (!condition) fail(why);
}

/** Progress lines for the operator (stderr); the table goes to stdout at the end. */
export type Log = (line: string) => void;

export interface Check<S> {
  id: string;
  title: string;
  /** The longest the check may take; past it, it fails (and the run goes on to the next). */
  budgetMs: number;
  /** Settings this check needs beyond the kit's own (asked for only when the check is selected). */
  needs?: Setting[];
  /** Set when a person must act (answer a phone, dial from a SIP phone): what they do. */
  human?: string;
  /**
   * A check that only runs when the operator opts in (`<name>=yes`), because it needs a person or
   * changes the provider account for a while; otherwise it is skipped with `what`.
   */
  optIn?: Setting;
  /** Resolves with what was seen when the check passed; throws {@link CheckFailed} or {@link CheckSkipped}. */
  run(session: S, log: Log): Promise<string>;
}

export interface ProviderKit<S> {
  provider: string;
  /** Settings every check of this kit needs. */
  settings: Setting[];
  /** Settings the kit reads when given (listed by --list). */
  optional: Setting[];
  checks: Check<S>[];
  /** What the run spends, said before it starts. */
  costs: string;
  /** Checks the provider's credentials and what the run reaches, then creates what the checks share; throws {@link RunRefused}. */
  open(env: NodeJS.ProcessEnv, log: Log): Promise<S>;
  /** Releases what `open` and the checks created; each problem is returned, not thrown. */
  close(session: S, log: Log): Promise<string[]>;
}

/** The settings of `settings` that `env` lacks (blank counts as missing), each named once. */
export function missingSettings(settings: Setting[], env: NodeJS.ProcessEnv): Setting[] {
  const seen = new Set<string>();
  return settings.filter((setting) => {
    if (seen.has(setting.name)) return false;
    seen.add(setting.name);
    return !env[setting.name]?.trim();
  });
}

function deadline(ms: number, what: string): { promise: Promise<never>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailed(`no result within ${Math.round(ms / 1000)} s (${what})`)), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * Runs one check within its budget; any error is its failure, with the error's message as the
 * reason. A check the operator has not opted into is skipped without running.
 */
export async function runCheck<S>(check: Check<S>, session: S, log: Log, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const started = Date.now();
  const result = (verdict: Verdict, why: string): CheckResult => ({
    id: check.id,
    title: check.title,
    verdict,
    why,
    ms: Date.now() - started,
  });
  if (check.optIn && env[check.optIn.name]?.trim() !== 'yes')
    return result('skip', `not opted in (${check.optIn.name}=yes): ${check.optIn.what}`);
  log(`▶ ${check.id}: ${check.title}`);
  const budget = deadline(check.budgetMs, 'its budget ran out');
  try {
    const seen = await Promise.race([check.run(session, log), budget.promise]);
    return result('pass', seen);
  } catch (err) {
    if (err instanceof CheckSkipped) return result('skip', err.message);
    if (err instanceof CheckFailed) return result('fail', err.message);
    return result('fail', `error: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    budget.cancel();
  }
}

/** 0 when no check failed (skips are listed, not counted as passes), 1 otherwise. */
export function exitCodeOf(results: CheckResult[]): number {
  return results.some((r) => r.verdict === 'fail') ? 1 : 0;
}

/** Waits until `probe` returns a value (not undefined), polling; fails with `what` at the deadline. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; everyMs?: number },
): Promise<T> {
  const until = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= until) return fail(`${what}: not within ${Math.round(options.timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 2_000));
  }
}
