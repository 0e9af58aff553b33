import { patched } from '@temporalio/workflow';
import { AGENT_SENTENCE_QUEUE_LIMIT } from '../../src/domain/calls/rules';
import type { CallInput, SignalledCallEvent } from '../definitions/calls';
import { patches } from '../patches';
import type { CallEvents } from './events';
import type { Transcript } from './transcript';

/**
 * An agent line's call (docs/decisions/calls.md, "Agent lines (issue 29)"): nobody but the customer's agent talks on
 * it, through live control. The conversation loop takes no turn; it writes each caller sentence to the transcript as
 * it comes and keeps it here until a `wait` (or a speak-and-wait) takes it, oldest first. Past
 * `AGENT_SENTENCE_QUEUE_LIMIT` the oldest is dropped (it stays in the transcript). Carried over when the run continues
 * as new.
 */
export class AgentSentences {
  readonly queue: SignalledCallEvent[];

  constructor(carried: readonly SignalledCallEvent[] | undefined) {
    this.queue = [...(carried ?? [])];
  }

  keep(sentence: SignalledCallEvent): void {
    this.queue.push(sentence);
    if (this.queue.length > AGENT_SENTENCE_QUEUE_LIMIT) this.queue.splice(0, this.queue.length - AGENT_SENTENCE_QUEUE_LIMIT);
  }

  take(): SignalledCallEvent | undefined {
    return this.queue.shift();
  }
}

/** Whether this call is an agent line's: asked once per run (a history recorded before agent lines never has one). */
export function isAgentDriven(input: CallInput): boolean {
  return input.mode === 'agent' && patched(patches.agentLines);
}

/** What `keepForAgent` reads and writes of a call's state (workflows/calls/state.ts `CallState`). */
export interface AgentCall {
  readonly events: Pick<CallEvents, 'sentences'>;
  readonly transcript: Transcript;
  readonly forAgent: AgentSentences;
  sentencesTaken: number;
}

/** The sentences heard since the loop last looked: into the transcript in the order said, and kept for the agent. */
export async function keepForAgent(call: AgentCall): Promise<void> {
  const { events, transcript } = call;
  for (let sentence = events.sentences.shift(); sentence; sentence = events.sentences.shift()) {
    call.sentencesTaken += 1;
    transcript.unwritten.push(transcript.add({ role: 'user', text: sentence.text ?? '', timestamp: sentence.at }));
    call.forAgent.keep(sentence);
  }
  await transcript.flush();
}
