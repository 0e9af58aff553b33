/**
 * Campaign benchmark (issue 31, item 4): one campaign of `--contacts` (10,000) contacts at `--pace`
 * (600) calls per minute on the carrier simulator, through the whole system in this process
 * (test/support/harness.ts: API, an in-process worker, the simulator) over an ephemeral Postgres +
 * Temporal, with a mix of callees: 70 % answer (and hang up after BENCH_TALK_MS, 1000), 10 % busy,
 * 10 % never answer, 10 % answering machines (the campaign hangs up on them).
 *
 *   npm run bench:campaigns
 *   npm run bench:campaigns -- --contacts 1000 --pace 600      # a quick run (about 2 minutes)
 *
 * Prints the achieved pace against the configured one (dials the carrier saw, first to last), the
 * dial overhead that is Switchboard's (the dial's planned instant → the carrier), the workflow history
 * sizes (dispatcher runs and their events; call workflows, and attempt workflows of dispatchers from
 * before `campaign-dials-calls`), lost and duplicate dials (from the simulator's log: both must be 0),
 * the CPU of this process and the Temporal server, and the Temporal ceiling measured in the same run
 * after the campaign: one-activity workflows a second (bench:temporal's shape), read as history events
 * a second and divided by the events the campaign wrote a dial. Exits 1 on a lost or duplicate dial or
 * a campaign that did not complete; the pace target (≥ 0.95× the configured pace, or of the ceiling
 * when that is lower) is reported.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { intFromEnv } from '../src/platform/config';
import { createTenant, startHarness } from '../test/support/harness';
import { post } from '../src/domain/billing/ledger';
import { waitUntil } from './support/async';
import { cpuSeconds, listeningPid, portOf, postgresCpuMs, processCpuMs } from './support/cpu';
import { cpuTrace, firstToLast, perDial } from './campaigns/cpuTrace';
import { countQueries } from './support/queries';
import { createCurrentSecret, sealingKeyOf } from '../src/domain/lines/secrets';
import { startStubEndpoint } from './support/receivers';
import { startHarnessStack } from './support/harnessStack';
import { createCleanups, elapsedLog, reportFailures, runBench } from './support/run';
import { fmt, printTable } from './support/table';
import { achievedPace, dialLog, dialOverhead, lostAndDuplicates } from './campaigns/dials';
import { callsDueAt, historySizes, temporalCeiling } from './campaigns/temporal';

const POOL_LINES = 50;
const TRACE_WINDOW_MS = 60_000;

function argument(name: string, env: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : intFromEnv(env, fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} (${env}) must be a whole number from 1`);
  return value;
}

/** Distinct North American callees open at the suite's calling-hours instant (8,000 an exchange, outside 555-01xx). */
function callees(count: number): string[] {
  const exchanges = ['+1415555', '+1212555', '+1312555', '+1617555', '+1713555', '+1303555'];
  return Array.from({ length: count }, (_, i) => `${exchanges[Math.floor(i / 8000)]}${2000 + (i % 8000)}`);
}

async function main(): Promise<number> {
  const contacts = argument('contacts', 'BENCH_CONTACTS', 10_000);
  const pace = argument('pace', 'BENCH_PACE', 600);
  const talkMs = intFromEnv('BENCH_TALK_MS', 1_000);
  const ceilingWorkflows = intFromEnv('BENCH_CEILING_WORKFLOWS', 1_000);
  if (contacts > 48_000) throw new Error('--contacts is at most 48,000 (the bench’s callees)');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const log = elapsedLog();
  const cleanups = createCleanups({ log });
  try {
    const { stack } = await startHarnessStack('bench_campaigns', cleanups);
    const h = await startHarness();
    cleanups.push(() => h.close());
    await h.startWorker();

    // The customer's webhook endpoint, answering at once.
    const customer = await startStubEndpoint(200);
    cleanups.push(() => customer.close());

    const tenant = await createTenant(h.db);
    await post(h.db, {
      tenant: { workspaceId: tenant.workspaceId, environment: 'test' },
      type: 'credit_purchase',
      amountCents: 100_000_000,
      description: 'bench:campaigns credit',
      idempotencyRef: `bench:campaigns:${tenant.workspaceId}`,
      at: new Date(),
    });
    // Pool lines written as provisioning leaves them (lines.create allows 10 an hour).
    const lineIds: string[] = [];
    for (let i = 0; i < POOL_LINES; i += 1) {
      const [line] = await h
        .db('lines')
        .insert({
          workspace_id: tenant.workspaceId,
          user_id: tenant.owner.id,
          environment: 'test',
          name: `Bench pool ${i}`,
          mode: 'webhook',
          webhook_url: customer.origin,
          phone_number: `+1628${String(Date.now() % 1e5).padStart(5, '0')}${String(i).padStart(2, '0')}`,
          status: 'active',
          activated_at: new Date(),
        })
        .returning<Array<{ id: string }>>('id');
      lineIds.push(line.id);
      // A line's signing secret, as provisioning creates it: without one every webhook delivery fails and retries.
      await createCurrentSecret(h.db, sealingKeyOf(h.config), line.id, new Date());
    }
    const numbers = callees(contacts);
    const calleeSet = new Set(numbers);
    const calls = h.simulator.state.calls;
    for (const [i, to] of numbers.entries()) {
      const kind = i % 10;
      if (kind === 7) calls.setDestination(to, { outcome: 'busy', ringMs: 200 });
      else if (kind === 8) calls.setDestination(to, { outcome: 'no_answer', ringMs: 1_000 });
      else if (kind === 9) calls.setDestination(to, { outcome: 'answer', ringMs: 200, answeredBy: 'machine' });
      else calls.setDestination(to, { outcome: 'answer', ringMs: 200, hangUpAfterMs: talkMs });
    }

    log(`campaign of ${contacts} contacts at ${pace}/min over ${POOL_LINES} lines`);
    const serverPid = listeningPid(portOf(stack.temporalAddress));
    const queries = countQueries(h.db);
    const cpu0 = process.cpuUsage();
    const serverCpu0 = processCpuMs(serverPid);
    const created = await h.request('POST', '/api/v1/campaigns', {
      key: tenant.keys.test,
      body: {
        name: 'bench:campaigns',
        line_ids: lineIds,
        contacts: numbers.map((to) => ({ to_number: to })),
        calls_per_minute: pace,
        answering_machine: { action: 'hang_up' },
      },
    });
    if (created.status !== 201) throw new Error(`campaign refused: ${created.status} ${created.text}`);
    const campaignId: string = created.body.campaign.id;
    const expectedMs = (contacts / pace) * 60_000;
    let status = '';
    // Each minute: the dials of that minute and what they cost, so a dial that gets dearer as the run grows shows.
    const trace = cpuTrace({ temporalPid: serverPid, postgresCpuMs: () => postgresCpuMs(Number(new URL(stack.databaseUrl).port)) });
    let windowEnds = Date.now() + TRACE_WINDOW_MS;
    await waitUntil(
      'the campaign to complete',
      async () => {
        status = (await h.db('campaigns').where({ id: campaignId }).first('status')).status;
        if (Date.now() >= windowEnds || status === 'completed') {
          windowEnds = Date.now() + TRACE_WINDOW_MS;
          const window = trace.sample(dialLog(h.simulator.state, calleeSet).calls.length);
          if (window) log(perDial(window));
        }
        return status === 'completed';
      },
      expectedMs * 3 + 120_000,
      1_000,
    ).catch((err: Error) => log(err.message));
    const cpu = cpuSeconds(process.cpuUsage(cpu0));
    queries.stop();
    const serverCpuMs = (processCpuMs(serverPid) ?? NaN) - (serverCpu0 ?? NaN);
    log(`campaign ${status}`);

    const dials = dialLog(h.simulator.state, calleeSet);
    const achieved = achievedPace(dials);
    const { unfinished, lost, duplicates } = await lostAndDuplicates(h.db, campaignId, dials);
    const overhead = dialOverhead(await callsDueAt(h.temporal, h.config.taskQueue), dials);
    const histories = await historySizes(h.temporal, h.config.taskQueue, campaignId);
    const eventsPerDial = histories.totalEvents / dials.calls.length;
    log(`measuring the Temporal ceiling: ${ceilingWorkflows} one-activity workflows`);
    const ceiling = await temporalCeiling(h.temporal, stack.temporalAddress, h.config.temporalNamespace, ceilingWorkflows, 50);
    const ceilingDialsPerMinute = (ceiling.eventsPerSecond * 60) / eventsPerDial;
    const target = 0.95 * Math.min(pace, ceilingDialsPerMinute);

    console.log('');
    printTable(
      ['measure', 'value'],
      [
        ['contacts / dials the carrier saw', `${contacts} / ${dials.calls.length}`],
        ['configured pace (dials/min)', String(pace)],
        ['achieved pace (dials/min)', fmt(achieved, 1)],
        ['ratio achieved/configured', `${fmt(achieved / pace, 3)}x`],
        ['contacts unfinished when the bench stopped', String(unfinished)],
        ['lost dials / duplicate dials', `${lost} / ${duplicates}`],
        ['dial due → carrier, p50/p99 ms', `${fmt(overhead.p50, 0)} / ${fmt(overhead.p99, 0)}`],
        [
          'dispatcher runs / events per run (p50, max)',
          `${histories.dispatcherRuns} / ${histories.dispatcherEvents.p50}, ${histories.dispatcherEvents.max}`,
        ],
        [
          'attempt workflow events (p50, max)',
          `${histories.attemptEvents.p50}, ${histories.attemptEvents.max} (${histories.attemptEvents.count})`,
        ],
        ['call workflow events (p50, max)', `${histories.callEvents.p50}, ${histories.callEvents.max} (${histories.callEvents.count})`],
        ['history events a dial (all the campaign’s workflows)', fmt(eventsPerDial, 1)],
        ['database statements a dial (API, worker; the bench’s own polling included)', fmt(queries.total() / dials.calls.length, 1)],
        ['CPU s: bench process (API+worker+simulator) / Temporal', `${fmt(cpu, 1)} / ${fmt(serverCpuMs / 1000, 1)}`],
        [
          'CPU s a dial: bench process / Temporal',
          `${fmt(cpu / dials.calls.length, 3)} / ${fmt(serverCpuMs / 1000 / dials.calls.length, 3)}`,
        ],
        ['CPU s a dial, all three (bench, Temporal, Postgres): first → last minute', firstToLast(trace.windows())],
        [
          'Temporal ceiling: one-activity workflows/s × events each = events/s',
          `${fmt(ceiling.workflowsPerSecond, 1)} × ${ceiling.eventsPerWorkflow} = ${fmt(ceiling.eventsPerSecond, 0)}`,
        ],
        ['ceiling in dials/min (events/s × 60 ÷ events a dial)', fmt(ceilingDialsPerMinute, 0)],
        ['target: achieved ≥ 0.95 × min(pace, ceiling)', `${fmt(target, 1)}: ${achieved >= target ? 'MET' : 'MISSED'}`],
      ],
    );
    if (process.env.BENCH_QUERIES === '1') {
      console.log('\nstatements a dial, most frequent first:');
      for (const [sql, count] of queries.top(25)) console.log(`${fmt(count / dials.calls.length, 2).padStart(6)}  ${sql}`);
      const events = await h
        .db('webhook_events')
        .where({ workspace_id: tenant.workspaceId })
        .groupBy('event_type')
        .select('event_type')
        .count('* as n');
      console.log('\nwebhook events by type:', events.map((e) => `${e.event_type} ${e.n}`).join(', '));
      const deliveries = await h
        .db('webhook_deliveries as d')
        .join('webhook_events as e', 'e.id', 'd.event_id')
        .where('e.workspace_id', tenant.workspaceId)
        .groupBy('d.attempt', 'd.status', 'd.error_message')
        .select('d.attempt', 'd.status', 'd.error_message')
        .count('* as n');
      console.log(
        'webhook deliveries by attempt and status:',
        deliveries.map((d) => `#${d.attempt} ${d.status}${d.error_message ? ` (${d.error_message})` : ''} ${d.n}`).join(', '),
      );
    }
    const failures: string[] = [];
    if (status !== 'completed') failures.push(`the campaign is ${status}, not completed (${unfinished} contacts unfinished)`);
    if (lost > 0) failures.push(`${lost} lost dials`);
    if (duplicates > 0) failures.push(`${duplicates} duplicate dials`);
    return reportFailures(failures);
  } finally {
    await cleanups.run();
  }
}

runBench(main);
