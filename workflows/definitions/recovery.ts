import type { CallRecovery, MessageRecovery } from '../../activities/recovery';

/** The recovery workflow's contract with the hang-up use case and the sweep schedule. */

export interface RecoverOrphansInput {
  /** One call whose workflow is gone (a hang-up or a line release found none); without it, a sweep. */
  callId?: string;
}

export interface RecoverOrphansResult {
  calls: Array<{ callId: string } & (CallRecovery | { outcome: 'error' })>;
  messages: Array<{ messageId: string } & (MessageRecovery | { outcome: 'error' })>;
}
