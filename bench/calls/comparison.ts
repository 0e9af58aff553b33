import { fmt, printTable, ratio } from '../support/table';
import { CAPACITY_PERIOD_MS, msOrNa, type CpuPerTurn, type ThroughputResult } from './loops';
import type { ReferenceResults } from './reference';
import { printRows, type Row } from './turns';

/** Switchboard's turns side by side with the reference loops', with the ratios and the targets. */

const cpuCells = (cpu: CpuPerTurn) => [msOrNa(cpu.bench), msOrNa(cpu.api), msOrNa(cpu.worker), msOrNa(cpu.temporal), msOrNa(cpu.postgres)];

/** Turn throughput and CPU per turn of the project, the engine floor and the bare-Temporal loop, side by side, with the ratios. */
export function printThroughput(project: ThroughputResult, reference: ReferenceResults, workerMode: 'inline' | 'process'): void {
  const { bare, floor, durable } = reference;
  const benchLabel =
    workerMode === 'inline' ? 'bench process (API+simulator+worker) CPU ms' : 'bench process (API+simulator / driver+receivers) CPU ms';
  const line = (title: string, r: ThroughputResult) => [
    title,
    fmt(r.turnsPerSecond, 1),
    fmt(r.latency.p50, 1),
    fmt(r.latency.p99, 1),
    ...cpuCells(r.cpu),
  ];
  printTable(
    [
      'closed loop',
      'turns/s',
      'p50 ms',
      'p99 ms',
      benchLabel,
      'API process CPU ms',
      'worker process CPU ms',
      'Temporal server CPU ms',
      'Postgres CPU ms',
    ],
    [
      line('Switchboard say→speak', project),
      line('durable floor carrier POST→speak', durable),
      line('engine floor carrier POST→speak', floor),
      line('bare Temporal signal→POST', bare),
    ],
  );
  console.log(
    `[bench] turn throughput ratio (Switchboard / bare Temporal): ${ratio(project.turnsPerSecond, bare.turnsPerSecond, 2)} ` +
      `(target >= 0.80x: ${project.turnsPerSecond >= 0.8 * bare.turnsPerSecond ? 'MET' : 'MISSED'}); ` +
      `Switchboard / durable floor: ${ratio(project.turnsPerSecond, durable.turnsPerSecond, 2)}; ` +
      `Switchboard / engine floor: ${ratio(project.turnsPerSecond, floor.turnsPerSecond, 2)}; ` +
      `durable floor / bare Temporal: ${ratio(durable.turnsPerSecond, bare.turnsPerSecond, 2)}; ` +
      `engine floor / bare Temporal: ${ratio(floor.turnsPerSecond, bare.turnsPerSecond, 2)}`,
  );
  if (workerMode === 'process' && project.cpu.bench !== undefined && project.cpu.worker !== undefined) {
    // With BENCH_API=process the carrier's events reach the API process: API + worker is measured, not attributed.
    const apiMeasured = project.cpu.api !== undefined;
    const total = (apiMeasured ? project.cpu.api! : project.cpu.bench) + project.cpu.worker;
    const floorTotal = (floor.cpu.bench ?? NaN) + (floor.cpu.worker ?? NaN);
    const apiPart = apiMeasured
      ? `API process ${fmt(project.cpu.api!, 1)} ms (bench process: simulator, driver, receiver ${fmt(project.cpu.bench, 1)} ms)`
      : `API+simulator (bench process) ${fmt(project.cpu.bench, 1)} ms`;
    console.log(
      `[bench] CPU per turn: ${apiPart} + worker ${fmt(project.cpu.worker, 1)} ms = ` +
        `${fmt(total, 1)} ms (target <= 20 ms: ${total <= 20 ? 'MET' : 'MISSED'}); Temporal server ${msOrNa(project.cpu.temporal)} ms, ` +
        `Postgres ${msOrNa(project.cpu.postgres)} ms; engine floor: driver+receivers ${msOrNa(floor.cpu.bench)} + worker ` +
        `${msOrNa(floor.cpu.worker)} = ${fmt(floorTotal, 1)} ms, server ${msOrNa(floor.cpu.temporal)} ms ` +
        `(bare Temporal: driver ${msOrNa(bare.cpu.bench)} + worker ${msOrNa(bare.cpu.worker)}, server ${msOrNa(bare.cpu.temporal)})`,
    );
    if (apiMeasured) {
      // Switchboard's own processes against everything the durable floor runs (its driver and receivers included):
      // with the carrier and the agent on other machines, this is the CPU ratio one box would see.
      const own = project.cpu.api! + project.cpu.worker + (project.cpu.temporal ?? NaN) + (project.cpu.postgres ?? NaN);
      const durableAll =
        (durable.cpu.bench ?? NaN) + (durable.cpu.worker ?? NaN) + (durable.cpu.temporal ?? NaN) + (durable.cpu.postgres ?? NaN);
      console.log(
        `[bench] CPU per turn, all of it: Switchboard's API + worker + Temporal + Postgres ${fmt(own, 1)} ms; durable floor ` +
          `(driver+receivers ${msOrNa(durable.cpu.bench)} + worker ${msOrNa(durable.cpu.worker)} + Temporal ${msOrNa(durable.cpu.temporal)} + ` +
          `Postgres ${msOrNa(durable.cpu.postgres)}) ${fmt(durableAll, 1)} ms; ratio ${ratio(own, durableAll, 2)}`,
      );
    }
  }
}

/** Switchboard's paced phase at K next to the engine floor's and bare Temporal's at the same K, with the ratios of their latencies. */
export function printPacedComparison(project: { rows: Row[] } | undefined, reference: ReferenceResults['paced']): void {
  const { k } = reference;
  const message = project?.rows.find((r) => r.title === `K=${k} say→message`);
  const speak = project?.rows.find((r) => r.title === `K=${k} say→speak (turn)`);
  console.log(
    `[bench] K=${k}, one turn per lane every ${CAPACITY_PERIOD_MS / 1000} s: Switchboard against the engine floor and bare Temporal`,
  );
  const rows = [...(message ? [message] : []), reference.floorMessage, reference.bare, ...(speak ? [speak] : []), reference.floorSpeak];
  printRows(rows);
  if (message) {
    const vs = (r: Row) => `p50 ${ratio(message.p50, r.p50, 2)}, p99 ${ratio(message.p99, r.p99, 2)}`;
    console.log(
      `[bench] K=${k} say→message p50 ${fmt(message.p50, 1)} ms (target <= 30: ${message.p50 <= 30 ? 'MET' : 'MISSED'}), ` +
        `p99 ${fmt(message.p99, 1)} ms (target <= 100: ${message.p99 <= 100 ? 'MET' : 'MISSED'}); ` +
        `Switchboard / engine floor: ${vs(reference.floorMessage)}; Switchboard / bare Temporal: ${vs(reference.bare)}`,
    );
  }
}
