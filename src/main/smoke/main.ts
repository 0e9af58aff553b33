import { exitCodeOf, missingSettings, runCheck, RunRefused, type Check, type CheckResult, type ProviderKit, type Setting } from './runner';
import { stripeKit } from './stripe';
import { renderTable } from './table';
import { telnyxKit } from './telnyx';
import { twilioKit } from './twilio';

/**
 * `npm run smoke -- twilio|telnyx|stripe [--only id,id] [--list]`: the operator smoke kit. It runs
 * the scenarios that only a real provider account can settle (docs/carriers.md, "Operator smoke
 * kit") against the operator's running deployment and prints a table of checks. It is never
 * part of `npm test`: it needs the internet, real credentials and a public URL, and without
 * them it says what is missing and exits 2 without running anything.
 *
 * Exit codes: 0 every check that ran passed (skipped ones are listed as not proven), 1 a check
 * failed, cleanup left something behind or the run was interrupted, 2 the run was refused (usage,
 * settings, reachability).
 */

// Each kit has a session type of its own; here they are only run.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKit = ProviderKit<any>;

export const KITS: Record<string, AnyKit> = { twilio: twilioKit, telnyx: telnyxKit, stripe: stripeKit };

export interface SmokeIo {
  /** The table (stdout). */
  out: (text: string) => void;
  /** Progress and refusals (stderr). */
  err: (text: string) => void;
}

const USAGE = `Usage: npm run smoke -- <twilio|telnyx|stripe> [--only <check,check>] [--list]
  --list   the provider's checks, what each needs and whether a person must act; runs nothing
  --only   run only these checks (ids from --list)
See docs/carriers.md, "Operator smoke kit".`;

type Parsed = { provider: string; only?: string[]; list: boolean } | { error: string };

export function parseArgs(argv: string[]): Parsed {
  const [provider, ...rest] = argv;
  if (!provider || !(provider in KITS)) return { error: provider ? `unknown provider "${provider}"` : 'no provider given' };
  let only: string[] | undefined;
  let list = false;
  for (let i = 0; i < rest.length; i += 1) {
    if (rest[i] === '--list') list = true;
    else if (rest[i] === '--only' && rest[i + 1])
      only = rest[++i]
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean);
    else return { error: `unknown argument "${rest[i]}"` };
  }
  return { provider, only, list };
}

function describe(kit: AnyKit): string {
  const width = Math.max(...kit.checks.map((check: Check<unknown>) => check.id.length));
  const lines = kit.checks.map((check: Check<unknown>) => {
    const needs = (check.needs ?? []).map((s) => s.name);
    const extra = [
      needs.length ? `needs ${needs.join(', ')}` : '',
      check.optIn ? `runs only with ${check.optIn.name}=yes` : '',
      check.human ? `a person: ${check.human}` : '',
    ].filter(Boolean);
    return `  ${check.id.padEnd(width)} ${check.title}${extra.length ? `\n  ${''.padEnd(width)} (${extra.join('; ')})` : ''}`;
  });
  const settings = (list: Setting[]) => list.map((s) => `  ${s.name.padEnd(28)} ${s.what}`);
  return [
    `Checks of the ${kit.provider} run:`,
    ...lines,
    '',
    'Settings every check needs:',
    ...settings(kit.settings),
    ...(kit.optional.length ? ['', 'Optional settings:', ...settings(kit.optional)] : []),
    '',
    `It spends: ${kit.costs}.`,
  ].join('\n');
}

function refusal(provider: string, problems: string[]): string {
  return [
    `Cannot run the ${provider} smoke kit (nothing was run; whatever it had made is released):`,
    ...problems.map((p) => `  - ${p}`),
    USAGE.split('\n').at(-1),
  ].join('\n');
}

/** Runs the kit; resolves with the exit code. `stop` ends the run after the current check (cleanup still runs). */
export async function runSmoke(argv: string[], env: NodeJS.ProcessEnv, io: SmokeIo, stop?: AbortSignal): Promise<number> {
  const parsed = parseArgs(argv);
  if ('error' in parsed) {
    io.err(`${parsed.error}\n${USAGE}\n`);
    return 2;
  }
  const kit = KITS[parsed.provider];
  if (parsed.list) {
    io.out(`${describe(kit)}\n`);
    return 0;
  }
  const unknown = (parsed.only ?? []).filter((id) => !kit.checks.some((c: Check<unknown>) => c.id === id));
  if (unknown.length > 0) {
    io.err(`unknown check ${unknown.join(', ')} for ${kit.provider}; --list shows them\n`);
    return 2;
  }
  const checks: Check<unknown>[] = parsed.only ? kit.checks.filter((c: Check<unknown>) => parsed.only!.includes(c.id)) : kit.checks;
  const missing = missingSettings([...kit.settings, ...checks.flatMap((c) => c.needs ?? [])], env);
  if (missing.length > 0) {
    io.err(
      `${refusal(
        kit.provider,
        missing.map((s) => `${s.name} is not set: ${s.what}`),
      )}\n`,
    );
    return 2;
  }

  const log = (line: string) => io.err(`  ${line}\n`);
  io.err(`Switchboard smoke kit: ${kit.provider}, ${checks.length} checks. It spends: ${kit.costs}.\n`);
  for (const check of checks.filter((c) => c.human)) io.err(`  ${check.id} needs a person: ${check.human}\n`);
  let session: unknown;
  try {
    session = await kit.open(env, log);
  } catch (err) {
    if (err instanceof RunRefused) {
      io.err(`${refusal(kit.provider, err.problems)}\n`);
      return 2;
    }
    io.err(`The ${kit.provider} run could not be set up: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  const results: CheckResult[] = [];
  for (const check of checks) {
    if (stop?.aborted) results.push({ id: check.id, title: check.title, verdict: 'skip', why: 'not run: the run was interrupted', ms: 0 });
    else results.push(await runCheck(check, session, log, env));
  }
  const leftovers = await kit.close(session, log).catch((err: Error) => [`cleanup stopped: ${err.message}`]);
  io.out(renderTable(results));
  for (const problem of leftovers) io.out(`CLEANUP: ${problem}\n`);
  // An interrupted run proved less than it meant to: never 0.
  return Math.max(exitCodeOf(results), leftovers.length > 0 || stop?.aborted ? 1 : 0);
}

if (require.main === module) {
  const stop = new AbortController();
  process.on('SIGINT', () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
    process.stderr.write('\nStopping after the current check, then cleaning up (Ctrl-C again quits without cleanup).\n');
  });
  const io: SmokeIo = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };
  runSmoke(process.argv.slice(2), process.env, io, stop.signal).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
