import {
  transitionEvent,
  attemptCallId,
  attemptOutcome,
  dialSpacingMs,
  nextAttemptAt,
  settingsProblems,
  WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE,
} from '../../src/domain/campaigns/rules';

/** Campaigns' pure rules (src/domain/campaigns/rules.ts; docs/decisions/campaigns.md). */
describe('campaign rules', () => {
  it('derives one call id per (campaign, contact, attempt): the same identity again, the same id; another attempt, another', () => {
    const id = attemptCallId('c0b7c1d2-0000-4000-8000-000000000001', 'c0b7c1d2-0000-4000-8000-000000000002', 1);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(attemptCallId('c0b7c1d2-0000-4000-8000-000000000001', 'c0b7c1d2-0000-4000-8000-000000000002', 1)).toBe(id);
    expect(attemptCallId('c0b7c1d2-0000-4000-8000-000000000001', 'c0b7c1d2-0000-4000-8000-000000000002', 2)).not.toBe(id);
    expect(attemptCallId('c0b7c1d2-0000-4000-8000-000000000001', 'c0b7c1d2-0000-4000-8000-000000000003', 1)).not.toBe(id);
  });

  it('reads an attempt’s outcome from its call: a machine’s answer is voicemail only when the message was left', () => {
    const call = (status: string, answeredBy: string | null = null, endCause: string | null = null) => ({
      status,
      answered_by: answeredBy,
      end_cause: endCause,
    });
    expect(attemptOutcome(call('completed', 'human'), 'voicemail')).toBe('answered');
    expect(attemptOutcome(call('completed'), null)).toBe('answered');
    expect(attemptOutcome(call('completed', 'machine', 'answering_machine'), 'voicemail')).toBe('voicemail');
    expect(attemptOutcome(call('completed', 'machine', 'caller_hangup'), 'voicemail')).toBe('machine');
    expect(attemptOutcome(call('completed', 'machine', 'answering_machine'), 'hang_up')).toBe('machine');
    // A fax hung up on ends `answering_machine` too, with no message left.
    expect(attemptOutcome(call('completed', 'machine', 'answering_machine'), 'voicemail', 'fax')).toBe('machine');
    expect(attemptOutcome(call('busy'), null)).toBe('busy');
    expect(attemptOutcome(call('no_answer'), null)).toBe('no_answer');
    for (const status of ['failed', 'canceled', 'in_progress']) expect(attemptOutcome(call(status), null)).toBe('failed');
  });

  it('retries only the outcomes asked for, after the backoff, up to the maximum attempts', () => {
    const at = new Date('2026-11-29T10:00:00Z');
    const policy = { maxAttempts: 3, backoffSec: 600, retryOn: ['busy', 'no_answer'] };
    expect(nextAttemptAt(policy, 1, 'busy', at)).toEqual(new Date('2026-11-29T10:10:00Z'));
    expect(nextAttemptAt(policy, 2, 'no_answer', at)).toEqual(new Date('2026-11-29T10:10:00Z'));
    expect(nextAttemptAt(policy, 3, 'busy', at)).toBeNull();
    expect(nextAttemptAt(policy, 1, 'failed', at)).toBeNull();
    expect(nextAttemptAt(policy, 1, 'answered', at)).toBeNull();
  });

  it('refuses at creation a repeated line, concurrency beyond the pool, a pace beyond what the workspace has left, and a voicemail without its message', () => {
    const lineIds = ['a', 'b'];
    expect(settingsProblems({ lineIds, maxConcurrency: 2, callsPerMinute: 600 }, 0)).toEqual([]);
    expect(settingsProblems({ lineIds: ['a', 'a'], maxConcurrency: 1, callsPerMinute: 60 }, 0).map((p) => p.field)).toEqual(['line_ids']);
    expect(settingsProblems({ lineIds, maxConcurrency: 3, callsPerMinute: 60 }, 0).map((p) => p.field)).toEqual(['max_concurrency']);
    const [pace] = settingsProblems({ lineIds, maxConcurrency: 1, callsPerMinute: 100 }, WORKSPACE_CAMPAIGN_CALLS_PER_MINUTE - 50);
    expect(pace).toEqual({ field: 'calls_per_minute', message: expect.stringContaining('At most 50') });
    const voicemail = (action: 'hang_up' | 'voicemail', voicemailMessage: string | null) =>
      settingsProblems({ lineIds, maxConcurrency: 1, callsPerMinute: 1, answeringMachine: { action, voicemailMessage } }, 0);
    expect(voicemail('voicemail', null)).toEqual([
      { field: 'answering_machine.voicemail_message', message: 'Required with action voicemail' },
    ]);
    expect(voicemail('hang_up', 'Hi')).toEqual([{ field: 'answering_machine.voicemail_message', message: 'Only with action voicemail' }]);
    expect(voicemail('voicemail', 'Hi')).toEqual([]);
  });

  it('spaces dials by the pace', () => {
    expect(dialSpacingMs(600)).toBe(100);
    expect(dialSpacingMs(60)).toBe(1_000);
    expect(dialSpacingMs(7)).toBe(8_572);
  });

  it('tells receivers of each change of status once: a first run, a pause (also one that changes who paused), a resume, the end', () => {
    const state = (status: string, paused_reason: string | null = null) =>
      ({ status, paused_reason }) as Parameters<typeof transitionEvent>[0];
    expect(transitionEvent(state('scheduled'), state('running'))).toBe('campaign.started');
    expect(transitionEvent(state('running'), state('paused', 'insufficient_credits'))).toBe('campaign.paused');
    // An operator's pause of a campaign that paused itself: funds no longer lift it, so receivers are told.
    expect(transitionEvent(state('paused', 'insufficient_credits'), state('paused'))).toBe('campaign.paused');
    expect(transitionEvent(state('paused'), state('paused'))).toBeNull();
    expect(transitionEvent(state('paused', 'insufficient_credits'), state('running'))).toBe('campaign.resumed');
    // Resumed before its start time: resumed now, started when it starts.
    expect(transitionEvent(state('paused'), state('scheduled'))).toBe('campaign.resumed');
    expect(transitionEvent(state('running'), state('completed'))).toBe('campaign.completed');
    expect(transitionEvent(state('paused'), state('cancelled'))).toBe('campaign.cancelled');
    expect(transitionEvent(state('running'), state('running'))).toBeNull();
  });
});
