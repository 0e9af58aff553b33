import { eventually } from '../support/harness';
import { PortalClient, signInMember, signUpOperator, createLineInPortal, placeTestCallInPortal } from '../support/portalClient';
import { startTelnyxStub } from '../support/telnyxStub';
import { startTwilioStub } from '../support/twilioStub';
import { useSuite } from '../support/suite';

/** A call's recording played in the portal: read at the carrier (the simulator) with the carrier's credentials, and its refusals. */
describe('portal call recordings', () => {
  const { h } = useSuite({ portal: true, worker: true });

  const operator = async (): Promise<PortalClient> => (await signUpOperator(h, 'recording')).client;

  /** The raw answer (bytes) of a portal GET with the client's session, as the browser's audio element asks. */
  async function fetchAs(
    client: PortalClient,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ res: Response; bytes: Buffer }> {
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(`${h.apiUrl}${path}`, { redirect: 'manual', headers: { ...headers, ...(cookie ? { cookie } : {}) } });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  /** A test call on a recorded line, answered by the simulator's callee and hung up from the portal, once its recording is known. */
  async function recordedCall(client: PortalClient): Promise<string> {
    const { lineId } = await createLineInPortal(client, {
      name: 'Recorded desk',
      mode: 'hosted',
      system_prompt: 'You answer the front desk.',
    });
    await h.db('lines').where({ id: lineId }).update({ recording_enabled: true });
    const callId = await placeTestCallInPortal(client, lineId);
    await eventually(async () => ((await h.db('calls').where({ id: callId }).first())?.status === 'in_progress' ? true : undefined));
    // Let the recording hold some audio before the call ends.
    await new Promise((resolve) => setTimeout(resolve, 300)); // pacing: the recording holds some audio
    const callPage = await client.get(`/portal/calls/${callId}?env=test`);
    const hungUp = await client.post(`/portal/calls/${callId}/hangup`, {
      csrf_token: PortalClient.csrfOf(callPage),
      env: 'test',
      confirm: 'yes',
    });
    expect(hungUp.status).toBe(303);
    await eventually(async () => ((await h.db('calls').where({ id: callId }).first())?.recording_url ? true : undefined), 20_000);
    return callId;
  }

  it('plays a recorded call through the portal, to its own workspace only, and refuses what it cannot hand over', async () => {
    const owner = await signUpOperator(h, 'recording');
    const client = owner.client;
    const callId = await recordedCall(client);
    const row = await h.db('calls').where({ id: callId }).first();
    expect(row.recording_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/recordings\/.+\.wav$/);

    // The page plays it from the portal (the carrier's URL needs credentials the browser lacks) and offers it to download.
    const page = await client.get(`/portal/calls/${callId}?env=test`);
    const path = `/portal/calls/${callId}/recording?env=test`;
    expect(page.text).toContain(`<audio id="recording-player" controls preload="none" src="${path}"></audio>`);
    expect(page.text).toContain(`<a id="recording" href="${path}" download>`);
    expect(page.text).not.toContain(row.recording_url);

    const played = await fetchAs(client, path);
    expect(played.res.status).toBe(200);
    expect(played.res.headers.get('content-type')).toBe('audio/wav');
    expect(played.res.headers.get('content-disposition')).toBe(`inline; filename="${callId}.wav"`);
    expect(played.res.headers.get('cache-control')).toBe('private, no-store');
    expect(played.bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(played.bytes.subarray(8, 12).toString('ascii')).toBe('WAVE');
    expect(played.bytes.length).toBeGreaterThan(44);
    expect(Number(played.res.headers.get('content-length'))).toBe(played.bytes.length);

    // Every role reads calls, so a plain member plays it too.
    const member = await signInMember(h.apiUrl, h.db, owner.workspaceId);
    const byMember = await fetchAs(member, path);
    expect(byMember.res.status).toBe(200);
    expect(byMember.bytes.equals(played.bytes)).toBe(true);
    // Another workspace's operator: no such call.
    const stranger = await operator();
    const foreign = await fetchAs(stranger, path);
    expect(foreign.res.status).toBe(404);
    expect(foreign.bytes.toString('utf8')).toContain('call_not_found');
    // No session: the login page, as every portal page answers.
    const anonymous = await fetchAs(new PortalClient(h.apiUrl), path);
    expect(anonymous.res.status).toBe(302);
    expect(anonymous.res.headers.get('location')).toBe('/portal/login');

    // Once its copy is in the store (issue 32), the player can seek: a range of it, from the store.
    await eventually(async () => (await h.db('call_objects').where({ call_id: callId, kind: 'recording' }).first()) ?? undefined, 20_000);
    const sought = await fetchAs(client, path, { range: 'bytes=44-99' });
    expect(sought.res.status).toBe(206);
    expect(sought.res.headers.get('accept-ranges')).toBe('bytes');
    expect(sought.res.headers.get('content-range')).toBe(`bytes 44-99/${played.bytes.length}`);
    expect(sought.bytes.equals(played.bytes.subarray(44, 100))).toBe(true);

    // A recording URL off the carrier's host is never fetched (the adapter's credentials stay home): no recording.
    await h.db('calls').where({ id: callId }).update({ recording_url: 'http://169.254.169.254/recordings/x.wav' });
    const offHost = await fetchAs(client, path);
    expect(offHost.res.status).toBe(404);
    expect(offHost.bytes.toString('utf8')).toContain('not_found');
    // A recording the carrier does not have.
    await h
      .db('calls')
      .where({ id: callId })
      .update({ recording_url: row.recording_url.replace(/[^/]+\.wav$/, 'unknown.wav') });
    expect((await fetchAs(client, path)).res.status).toBe(404);

    // A call without a recording: 404, and its page has no player.
    await h.db('calls').where({ id: callId }).update({ recording_url: null });
    expect((await fetchAs(client, path)).res.status).toBe(404);
    const unrecorded = await client.get(`/portal/calls/${callId}?env=test`);
    expect(unrecorded.text).toContain('id="no-recording"');
    expect(unrecorded.text).not.toContain('<audio');
  });

  it("reads the recording at the carrier the call's environment is configured with: Twilio, Telnyx", async () => {
    const client = await operator();
    const callId = await recordedCall(client);
    const path = `/portal/calls/${callId}/recording?env=test`;
    const saved = {
      providers: h.config.carrier,
      twilio: h.config.twilio,
      telnyx: h.config.telnyx,
    };
    const twilio = await startTwilioStub();
    const telnyx = await startTelnyxStub();
    try {
      // Twilio in the test environment: its RecordingUrl, read as `.wav` with the account's Basic auth.
      h.config.carrier = { ...saved.providers, test: 'twilio' };
      h.config.twilio = { ...saved.twilio, test: { accountSid: twilio.accountSid, authToken: twilio.authToken }, apiBaseUrl: twilio.url };
      await h
        .db('calls')
        .where({ id: callId })
        .update({ recording_url: twilio.addRecording('CA' + 'a'.repeat(32), 500) });
      const fromTwilio = await fetchAs(client, path);
      expect(fromTwilio.res.status).toBe(200);
      // Twilio's `audio/x-wav` is WAV: played inline as audio/wav.
      expect(fromTwilio.res.headers.get('content-type')).toBe('audio/wav');
      expect(fromTwilio.res.headers.get('content-disposition')).toBe(`inline; filename="${callId}.wav"`);
      expect(fromTwilio.bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
      expect(twilio.requests.map((r) => r.path)).toEqual([expect.stringMatching(/\/Recordings\/RE[0-9a-f]{32}\.wav$/)]);

      // The carrier's storage labels a "recording" as HTML or SVG: never rendered on the portal's origin (L22).
      for (const hostile of ['text/html', 'image/svg+xml', 'application/javascript']) {
        await h
          .db('calls')
          .where({ id: callId })
          .update({ recording_url: twilio.addRecording('CA' + 'b'.repeat(32), 500, hostile) });
        const served = await fetchAs(client, path);
        expect([hostile, served.res.status, served.res.headers.get('content-type'), served.res.headers.get('content-disposition')]).toEqual(
          [hostile, 200, 'application/octet-stream', `attachment; filename="${callId}.bin"`],
        );
        expect(served.res.headers.get('x-content-type-options')).toBe('nosniff');
      }
      // Twilio never labels its recordings so: the stub's contract check names each deliberate breach, taken here.
      expect(twilio.contract.take().flatMap((v) => v.problems)).toEqual([
        'a .wav recording is audio/x-wav, not text/html',
        'a .wav recording is audio/x-wav, not image/svg+xml',
        'a .wav recording is audio/x-wav, not application/javascript',
      ]);
      twilio.requests.length = 0;

      // Telnyx in the live environment (it has no test mode): the recording resource with the API key, then its presigned download link.
      h.config.carrier = { ...saved.providers, live: 'telnyx' };
      h.config.telnyx = { ...saved.telnyx, apiKey: telnyx.apiKey, baseUrl: telnyx.baseUrl };
      const id = telnyx.addRecording('v3:portal', 500);
      await h
        .db('calls')
        .where({ id: callId })
        .update({ environment: 'live', recording_url: `https://api.telnyx.com/v2/recordings/${id}` });
      const livePath = `/portal/calls/${callId}/recording?env=live`;
      const fromTelnyx = await fetchAs(client, livePath);
      expect(fromTelnyx.res.status).toBe(200);
      expect(fromTelnyx.res.headers.get('content-type')).toBe('audio/wav');
      expect(fromTelnyx.bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
      expect(telnyx.requests.map((r) => r.path)).toEqual([`/v2/recordings/${id}`, `/storage/recordings/${id}.wav`]);

      // A Telnyx call whose row names a recording on another host: refused before any request.
      telnyx.requests.length = 0;
      await h
        .db('calls')
        .where({ id: callId })
        .update({ recording_url: `http://127.0.0.1:1/v2/recordings/${id}` });
      expect((await fetchAs(client, livePath)).res.status).toBe(404);
      expect(telnyx.requests).toEqual([]);
    } finally {
      h.config.carrier = saved.providers;
      h.config.twilio = saved.twilio;
      h.config.telnyx = saved.telnyx;
      await twilio.close();
      await telnyx.close();
    }
  });
});
