import {
  transferTwiml,
  transferWasAnswered,
  twilioAnsweredBy,
  twilioGreetingEnded,
  twilioMachineKind,
} from '../../src/adapters/carrier/twilio/callbacks/transfer';

/** The pure parts of transfer and machine detection on Twilio (src/adapters/carrier/twilio/callbacks/transfer.ts). */
describe('Twilio transfer and machine detection', () => {
  it('maps AnsweredBy: human, machines (start, end, fax), and unknown for anything else', () => {
    expect(twilioAnsweredBy('human')).toBe('human');
    for (const machine of ['machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other', 'fax'])
      expect(twilioAnsweredBy(machine)).toBe('machine');
    expect(twilioAnsweredBy('unknown')).toBe('unknown');
    expect(twilioAnsweredBy(undefined)).toBe('unknown');
  });

  it('a fax is a machine of kind fax, whose greeting never ends; no other AnsweredBy names a kind', () => {
    expect(twilioMachineKind('fax')).toEqual({ machine_kind: 'fax' });
    expect(twilioGreetingEnded('fax')).toBe(false);
    for (const other of ['human', 'machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other', 'unknown', undefined])
      expect(twilioMachineKind(other)).toEqual({});
  });

  it('dials the destination from the line’s number, reports its answer and the dial’s end to our routes', () => {
    const twiml = transferTwiml('https://sb.example.com/', {
      callId: 'call-1',
      transferId: 't-1',
      to: '+14155550190',
      from: '+14155550100',
    });
    expect(twiml).toContain(
      '<Dial callerId="+14155550100" timeout="30" action="https://sb.example.com/carrier/twilio/calls/dialed?call_id=call-1&amp;transfer_id=t-1" method="POST">',
    );
    expect(twiml).toContain(
      '<Number statusCallbackEvent="answered" statusCallback="https://sb.example.com/carrier/twilio/calls/transfer?call_id=call-1&amp;transfer_id=t-1" statusCallbackMethod="POST">+14155550190</Number>',
    );
  });

  it('a dial that ended completed or answered had been answered; busy, no-answer, failed and canceled never were', () => {
    expect(transferWasAnswered('completed')).toBe(true);
    expect(transferWasAnswered('answered')).toBe(true);
    for (const status of ['busy', 'no-answer', 'failed', 'canceled', undefined]) expect(transferWasAnswered(status)).toBe(false);
  });
});
