import { performance } from 'node:perf_hooks';
import { decryptedHistory } from '../../dev/temporalHistory';
import { row, type Bench, type Row, type Turn } from './turns';

/** Where the time of a turn goes: its say→message split into hops read from the call's workflow history. */

/** A history event as `JSON.stringify` of the client's History renders it. */
interface HistoryEvent {
  eventId: string;
  eventTime: { seconds: string; nanos: number };
  eventType: string;
  workflowExecutionSignaledEventAttributes?: { input?: { payloads?: Array<{ data?: string }> } };
}

/** performance.now() → epoch ms (history event times are epoch; the bench times are monotonic). */
const epochOf = (monotonic: number) => performance.timeOrigin + monotonic;
const eventMs = (e: HistoryEvent) => Number(e.eventTime.seconds) * 1000 + e.eventTime.nanos / 1e6;

const HOPS = [
  // Simulator control call, the carrier event POST, the API, the signal RPC.
  'say → signal in history',
  // Task dispatch, or waiting for the workflow task already in flight.
  'signal → workflow task started',
  // Activation, then the turn's activity (scheduled through the server, or local), the event insert and lookups, the POST.
  'workflow task started → message',
] as const;

/**
 * Splits each turn's say→message time into hops, reading the call's history: the signal that
 * carried the sentence, the next workflow task started, then the receiver's receipt.
 */
export async function hopRows(bench: Bench, turns: Turn[]): Promise<Row[]> {
  const samples: number[][] = HOPS.map(() => []);
  const byCall = new Map<string, Turn[]>();
  for (const t of turns) byCall.set(t.callId, [...(byCall.get(t.callId) ?? []), t]);
  let missing = 0;
  for (const [callId, callTurns] of byCall) {
    const history = JSON.parse(JSON.stringify(await decryptedHistory(bench.h.temporal, callId))) as {
      events: HistoryEvent[];
    };
    const events = history.events;
    for (const t of callTurns) {
      const message = bench.receiver.messageAt.get(t.text);
      const signalIndex = events.findIndex((e) => {
        const data = e.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0]?.data;
        if (!data) return false;
        const event = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { type?: string; text?: string };
        return event.type === 'call.utterance' && event.text === t.text;
      });
      const started = events.findIndex((e, i) => i > signalIndex && e.eventType === 'EVENT_TYPE_WORKFLOW_TASK_STARTED');
      if (message === undefined || signalIndex < 0 || started < 0) {
        missing += 1;
        continue;
      }
      const points = [epochOf(t.sayAt), eventMs(events[signalIndex]), eventMs(events[started]), epochOf(message)];
      HOPS.forEach((_, i) => samples[i].push(points[i + 1] - points[i]));
    }
  }
  return HOPS.map((title, i) => row(`  ${title}`, samples[i], missing));
}
