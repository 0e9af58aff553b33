import type { CallStatus } from '../../src/domain/calls/rules';

/** The recovery workflow's contract with the hang-up use case and the sweep schedule. */

export interface RecoverOrphansInput {
  /** One call whose workflow is gone (a hang-up or a line release found none); without it, a sweep. */
  callId?: string;
}

/** What recovery did with one call (src/domain/calls/recover.ts). */
export type CallRecovery =
  | { outcome: 'workflow_running' | 'already_ended' }
  | { outcome: 'ended'; status: CallStatus; chargeCents: number; workflow: 'missing' | 'closed' | 'terminated' };
/** What recovery did with one queued message (src/domain/messages/recover.ts). */
export type MessageRecovery = { outcome: 'workflow_exists' | 'already_sent' } | { outcome: 'failed' };

export interface RecoverOrphansResult {
  calls: Array<{ callId: string } & (CallRecovery | { outcome: 'error' })>;
  messages: Array<{ messageId: string } & (MessageRecovery | { outcome: 'error' })>;
}
