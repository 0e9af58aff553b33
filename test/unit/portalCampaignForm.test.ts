import { campaignBodyOfForm } from '../../api/portal/campaignForm';

/** The portal's create-campaign form as the body of POST /api/v1/campaigns (api/portal/campaignForm.ts). */
describe('the portal campaign form as the API body', () => {
  const LINE = '7a2c0f7e-2f1c-4a8e-9b1a-0f3f7d1f1e11';
  const allRetried = { 'retry_on.busy': 'on', 'retry_on.no_answer': 'on', 'retry_on.failed': 'on' };

  it('leaves blank fields out (the API defaults apply) and reads one number a line, blank lines skipped', async () => {
    expect(
      await campaignBodyOfForm({ [`line.${LINE}`]: 'on', contacts: ' +14155550100 \r\n\r\n+14155550101\n', name: ' ', ...allRetried }),
    ).toEqual({
      body: { line_ids: [LINE], contacts: [{ to_number: '+14155550100' }, { to_number: '+14155550101' }] },
      problems: [],
    });
  });

  it('reads a JSON list as the API takes it, and says where JSON that does not parse goes wrong', async () => {
    const contacts = [{ to_number: '+14155550100', variables: { name: 'Ada' }, metadata: { ref: 'c1' } }];
    expect(
      (await campaignBodyOfForm({ [`line.${LINE}`]: 'on', contacts: JSON.stringify(contacts), ...allRetried })).body?.contacts,
    ).toEqual(contacts);
    // An object is JSON too (the schema then refuses it: the API takes a list), never a number to call.
    expect((await campaignBodyOfForm({ contacts: '{"to_number": "+14155550100"}' })).body?.contacts).toEqual({ to_number: '+14155550100' });
    expect(await campaignBodyOfForm({ contacts: '[{"to_number": ' })).toEqual({
      problems: [{ field: 'contacts', message: expect.stringMatching(/^Not a JSON list: /) }],
    });
  });

  it('reads the picker’s start as UTC, numbers as numbers (anything else as typed, for the schema to name), retries and the machine', async () => {
    const { body } = await campaignBodyOfForm({
      [`line.${LINE}`]: 'on',
      'line.other': '',
      contacts: '+14155550100',
      start_at: '2026-12-01T09:30',
      calls_per_minute: '30',
      max_concurrency: 'two',
      max_attempts: '3',
      'retry_on.busy': 'on',
      machine_detection: 'on',
      answering_machine: 'voicemail',
      voicemail_message: ' Please call us back. ',
      topic: 'Confirm the appointment',
    });
    expect(body).toEqual({
      line_ids: [LINE],
      contacts: [{ to_number: '+14155550100' }],
      topic: 'Confirm the appointment',
      start_at: '2026-12-01T09:30:00Z',
      calls_per_minute: 30,
      max_concurrency: 'two',
      retry: { max_attempts: 3, on: ['busy'] },
      machine_detection: 'detect',
      answering_machine: { action: 'voicemail', voicemail_message: 'Please call us back.' },
    });
    expect((await campaignBodyOfForm({ contacts: '+1', start_at: '2026-12-01T09:30:15' })).body?.start_at).toBe('2026-12-01T09:30:15Z');
    // A message without its action is kept, for the schema to refuse (not dropped in silence).
    expect((await campaignBodyOfForm({ contacts: '+1', voicemail_message: 'Hi', ...allRetried })).body?.answering_machine).toEqual({
      action: '',
      voicemail_message: 'Hi',
    });
  });

  it('reads a pasted CSV with its header as an uploaded list is read: variables, metadata, and each problem named by row and column', async () => {
    const csv = 'phone_number,name,metadata.ref\r\n+14155550100,Ada,c1\r\n"+14155550101","Grace, Rear Admiral",\r\n';
    expect((await campaignBodyOfForm({ [`line.${LINE}`]: 'on', contacts: csv, ...allRetried })).body?.contacts).toEqual([
      { to_number: '+14155550100', variables: { name: 'Ada' }, metadata: { ref: 'c1' } },
      { to_number: '+14155550101', variables: { name: 'Grace, Rear Admiral' } },
    ]);
    const refused = await campaignBodyOfForm({ contacts: 'phone_number,name,name\n+14155550100,Ada,Ada\n' });
    expect(refused.body).toBeUndefined();
    expect(refused.problems).toEqual([{ field: 'contacts.columns.3', message: expect.stringContaining('names two columns') }]);
  });
});
