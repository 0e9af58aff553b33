import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { KITS, runSmoke, type SmokeIo } from '../../src/main/smoke/main';
import {
  CheckFailed,
  exitCodeOf,
  RunRefused,
  runCheck,
  skip,
  type Check,
  type CheckResult,
  type ProviderKit,
} from '../../src/main/smoke/runner';
import { renderTable, wrap } from '../../src/main/smoke/table';
import { freePort } from '../../src/platform/net/freePort';

/**
 * Issue 26 item 8: the operator smoke kit refuses, and says exactly what is missing, instead of
 * passing; a check passes only when it says what it saw; the table reports each check. Offline:
 * nothing here reaches a provider (the refusals come before any provider request).
 */

function captured(): SmokeIo & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return { out: (t) => (out += t), err: (t) => (err += t), stdout: () => out, stderr: () => err };
}

const TWILIO_ENV = {
  SMOKE_API_KEY: 'sk_live_smoke',
  TWILIO_LIVE_ACCOUNT_SID: 'AC00000000000000000000000000000000',
  TWILIO_LIVE_AUTH_TOKEN: 'token',
  TWILIO_LIVE_MESSAGING_SERVICE_SID: 'MG00000000000000000000000000000000',
};

describe('npm run smoke refuses without what it needs', () => {
  it.each(Object.keys(KITS))('%s with no settings: exit 2, every missing setting named, nothing run', async (provider) => {
    const io = captured();
    expect(await runSmoke([provider], {}, io)).toBe(2);
    for (const setting of KITS[provider].settings) expect(io.stderr()).toContain(`${setting.name} is not set`);
    expect(io.stderr()).toContain(`Cannot run the ${provider} smoke kit (nothing was run`);
    expect(io.stdout()).toBe('');
  });

  it('names only what is missing, including what a selected check needs', async () => {
    const env = { ...TWILIO_ENV, SMOKE_API_URL: 'https://sb.example.com', SMOKE_RECEIVER_URL: 'https://r.example.com' };
    const { TWILIO_LIVE_AUTH_TOKEN: _token, TWILIO_LIVE_MESSAGING_SERVICE_SID: _service, ...partial } = env;
    const io = captured();
    expect(await runSmoke(['twilio', '--only', 'sms'], partial, io)).toBe(2);
    expect(io.stderr()).toContain('TWILIO_LIVE_AUTH_TOKEN is not set');
    expect(io.stderr()).toContain('TWILIO_LIVE_MESSAGING_SERVICE_SID is not set');
    expect(io.stderr()).not.toContain('SMOKE_API_URL is not set');

    // A check that needs no Messaging Service does not ask for one.
    const amdOnly = captured();
    await runSmoke(['twilio', '--only', 'amd'], partial, amdOnly);
    expect(amdOnly.stderr()).not.toContain('TWILIO_LIVE_MESSAGING_SERVICE_SID');
  });

  it('refuses with exit 2 naming the API and the receiver URL when neither can be reached', async () => {
    const [api, receiver, local] = [await freePort(), await freePort(), await freePort()];
    const env = {
      ...TWILIO_ENV,
      SMOKE_API_URL: `http://127.0.0.1:${api}`,
      SMOKE_RECEIVER_URL: `https://127.0.0.1:${receiver}`,
      SMOKE_RECEIVER_PORT: String(local),
    };
    const io = captured();
    expect(await runSmoke(['twilio'], env, io)).toBe(2);
    expect(io.stderr()).toContain(`the API at http://127.0.0.1:${api} cannot be reached`);
    expect(io.stderr()).toContain(`https://127.0.0.1:${receiver} cannot be reached`);
    expect(io.stdout()).toBe('');
  });

  it('refuses a receiver URL that is not https (live lines deliver only to https)', async () => {
    const io = captured();
    const env = { ...TWILIO_ENV, SMOKE_API_URL: 'https://sb.example.com', SMOKE_RECEIVER_URL: 'http://r.example.com' };
    expect(await runSmoke(['twilio'], env, io)).toBe(2);
    expect(io.stderr()).toContain('SMOKE_RECEIVER_URL must be https');
  });

  it('refuses a live Stripe key, and an unreachable API, before calling Stripe', async () => {
    const live = captured();
    expect(await runSmoke(['stripe'], { SMOKE_API_URL: 'https://sb.example.com', STRIPE_TEST_SECRET_KEY: 'sk_live_x' }, live)).toBe(2);
    expect(live.stderr()).toContain('STRIPE_TEST_SECRET_KEY must be a test-mode key');

    const port = await freePort();
    const down = captured();
    expect(await runSmoke(['stripe'], { SMOKE_API_URL: `http://127.0.0.1:${port}`, STRIPE_TEST_SECRET_KEY: 'sk_test_x' }, down)).toBe(2);
    expect(down.stderr()).toContain(`the API at http://127.0.0.1:${port} cannot be reached`);
  });

  it('answers usage errors with exit 2', async () => {
    for (const argv of [[], ['plivo'], ['twilio', '--only', 'nope'], ['telnyx', '--verbose']]) {
      const io = captured();
      expect(await runSmoke(argv, {}, io)).toBe(2);
      expect(io.stderr()).not.toBe('');
    }
  });

  it('--list shows every check of the provider and runs nothing', async () => {
    const io = captured();
    expect(await runSmoke(['telnyx', '--list'], {}, io)).toBe(0);
    for (const check of KITS.telnyx.checks) expect(io.stdout()).toContain(check.id);
    expect(io.stdout()).toContain('SMOKE_TELNYX_RELAY_WEBHOOKS=yes');
  });

  it('exits 2 as a process too (the npm script), with the reason on stderr', () => {
    const main = path.join(__dirname, '../../src/main/smoke/main.ts');
    const run = spawnSync(process.execPath, ['--import', 'tsx', main, 'stripe'], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('STRIPE_TEST_SECRET_KEY is not set');
    expect(run.stdout).toBe('');
  });
});

describe('the runner', () => {
  const check = (run: () => Promise<string>, extra: Partial<Check<null>> = {}): Check<null> => ({
    id: 'c',
    title: 'A check',
    budgetMs: 1_000,
    run,
    ...extra,
  });
  const quiet = () => undefined;

  it('passes a check only with what it saw; a failure, an error or a skip carries its reason', async () => {
    const outcome = async (run: () => Promise<string>) => {
      const { verdict, why } = await runCheck(check(run), null, quiet, {});
      return { verdict, why };
    };
    expect(await outcome(async () => 'saw it')).toEqual({ verdict: 'pass', why: 'saw it' });
    expect(await outcome(async () => Promise.reject(new CheckFailed('no recording')))).toEqual({ verdict: 'fail', why: 'no recording' });
    expect(await outcome(async () => Promise.reject(new Error('socket hang up')))).toEqual({
      verdict: 'fail',
      why: 'error: socket hang up',
    });
    expect(await outcome(async () => skip('needs a SIP phone'))).toEqual({ verdict: 'skip', why: 'needs a SIP phone' });
  });

  it('fails a check that outlives its budget', async () => {
    const result = await runCheck(
      check(() => new Promise<string>(() => undefined), { budgetMs: 50 }),
      null,
      quiet,
      {},
    );
    expect(result.verdict).toBe('fail');
    expect(result.why).toMatch(/^no result within/);
  });

  it('skips an opt-in check without running it unless the operator said yes', async () => {
    const run = jest.fn(async () => 'ran');
    const optIn = { name: 'SMOKE_X', what: 'changes the account' };
    expect(await runCheck(check(run, { optIn }), null, quiet, {})).toMatchObject({ verdict: 'skip' });
    expect(run).not.toHaveBeenCalled();
    expect(await runCheck(check(run, { optIn }), null, quiet, { SMOKE_X: 'yes' })).toMatchObject({ verdict: 'pass' });
  });

  it('exits 1 when any check failed, 0 when none did (skips included)', () => {
    const r = (verdict: CheckResult['verdict']): CheckResult => ({ id: verdict, title: verdict, verdict, why: '', ms: 0 });
    expect(exitCodeOf([r('pass'), r('skip')])).toBe(0);
    expect(exitCodeOf([r('pass'), r('fail'), r('skip')])).toBe(1);
  });

  describe('a whole run', () => {
    const closed = jest.fn(async () => [] as string[]);
    const fake: ProviderKit<{ open: true }> = {
      provider: 'fake',
      settings: [{ name: 'FAKE_KEY', what: 'the key' }],
      optional: [],
      costs: 'nothing',
      checks: [
        { id: 'works', title: 'Works', budgetMs: 1_000, run: async () => 'it worked' },
        { id: 'broken', title: 'Broken', budgetMs: 1_000, run: async () => Promise.reject(new CheckFailed('it broke')) },
        { id: 'later', title: 'Later', budgetMs: 1_000, run: async () => skip('not today') },
      ],
      open: async () => ({ open: true }),
      close: closed,
    };
    beforeAll(() => (KITS.fake = fake));
    afterAll(() => delete KITS.fake);
    beforeEach(() => closed.mockReset().mockResolvedValue([]));

    it('prints the table, cleans up and exits 1 when a check failed', async () => {
      const io = captured();
      expect(await runSmoke(['fake'], { FAKE_KEY: 'k' }, io)).toBe(1);
      expect(io.stdout()).toMatch(/works\s+PASS .* Works: it worked/);
      expect(io.stdout()).toMatch(/broken\s+FAIL .* Broken: it broke/);
      expect(io.stdout()).toMatch(/later\s+SKIP .* Later: not today/);
      expect(io.stdout()).toContain('1 passed, 1 failed, 1 skipped (not proven)');
      expect(closed).toHaveBeenCalledTimes(1);
    });

    it('exits 1 when cleanup left something behind, or could not finish, even if every check passed', async () => {
      closed.mockResolvedValue(['line L not released']);
      const io = captured();
      expect(await runSmoke(['fake', '--only', 'works'], { FAKE_KEY: 'k' }, io)).toBe(1);
      expect(io.stdout()).toContain('CLEANUP: line L not released');

      closed.mockRejectedValueOnce(new Error('database gone'));
      const stopped = captured();
      expect(await runSmoke(['fake', '--only', 'works'], { FAKE_KEY: 'k' }, stopped)).toBe(1);
      expect(stopped.stdout()).toMatch(/works\s+PASS/);
      expect(stopped.stdout()).toContain('CLEANUP: cleanup stopped: database gone');
    });

    it('exits 2 and closes nothing when the session is refused', async () => {
      const open = jest.spyOn(fake, 'open').mockRejectedValueOnce(new RunRefused(['the tunnel is down']));
      const io = captured();
      expect(await runSmoke(['fake'], { FAKE_KEY: 'k' }, io)).toBe(2);
      expect(io.stderr()).toContain('the tunnel is down');
      expect(closed).not.toHaveBeenCalled();
      open.mockRestore();
    });

    it('stops after the current check when interrupted, still cleans up, and does not exit 0', async () => {
      const stop = new AbortController();
      stop.abort();
      const io = captured();
      expect(await runSmoke(['fake', '--only', 'works'], { FAKE_KEY: 'k' }, io, stop.signal)).toBe(1);
      expect(io.stdout()).toContain('not run: the run was interrupted');
      expect(closed).toHaveBeenCalledTimes(1);
    });
  });
});

describe('the table', () => {
  it('wraps at spaces and cuts words longer than the width', () => {
    expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('keeps every line within the width and continues a long reason under its column', () => {
    const results: CheckResult[] = [
      { id: 'amd', title: 'Machine detection', verdict: 'pass', why: 'answered_by human', ms: 12_400 },
      {
        id: 'voices',
        title: 'Voices',
        verdict: 'fail',
        why: `2 of 13 voices failed: ${'russian-irina: 64101 Invalid tts settings '.repeat(4)}`,
        ms: 801,
      },
    ];
    const table = renderTable(results, 80);
    const lines = table.trimEnd().split('\n');
    expect(lines.every((line) => line.length <= 80)).toBe(true);
    expect(lines[0]).toMatch(/^check\s+res\s+time\s+why$/);
    expect(lines.find((l) => l.startsWith('amd'))).toMatch(/PASS\s+12 s\s+Machine detection: answered_by human/);
    const failing = lines.findIndex((l) => l.startsWith('voices'));
    expect(lines[failing]).toMatch(/FAIL\s+0\.8 s\s+Voices: 2 of 13/);
    expect(lines[failing + 1]).toMatch(/^ {10,}\S/);
    expect(lines.at(-1)).toBe('1 passed, 1 failed');
  });
});
