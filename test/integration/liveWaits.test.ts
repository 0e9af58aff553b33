import { customer } from '../support/customer';
import { untilNoWaitOpen, untilWaitingForCaller } from '../support/callWorkflow';
import { spokenCalls } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * Waiting for the caller on a live call, as an agent over the API or MCP does it (issue 29, from the
 * MCP walk): an abandoned wait does not steal the next sentence, one wait at a time, and a hang-up
 * during a wait says the call ended.
 */
describe('live-control waits an agent can trust', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant, receiver } = ctx;
  const { lines, calls } = customer(ctx, { line: () => ({ name: 'Line' }) });
  const { sim } = spokenCalls(ctx);
  const liveCall = async (to: string) => {
    const line = await lines.create({ mode: 'webhook', webhook_url: receiver.url });
    const id = (await calls.place(line.id, to)).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    return id;
  };

  it('a wait whose client went away is withdrawn: the caller’s next sentence goes to the next wait', async () => {
    const id = await liveCall('+14155552691');
    const abort = new AbortController();
    const abandoned = fetch(`${h.apiUrl}/api/v1/calls/${id}/wait`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.keys.test}`, 'content-type': 'application/json' },
      body: JSON.stringify({ timeout_seconds: 90 }),
      signal: abort.signal,
    }).catch((err: Error) => err.name);
    await untilWaitingForCaller(h.temporal, id);
    abort.abort();
    expect(await abandoned).toBe('AbortError');
    // Withdrawn at once, long before its 90 s.
    await untilNoWaitOpen(h.temporal, id);

    const next = calls.wait(id, { timeout_seconds: 20 });
    await untilWaitingForCaller(h.temporal, id);
    await sim.calls.say(id, 'Are you still there?');
    expect((await next).body).toMatchObject({ timed_out: false, call_ended: false, response_text: 'Are you still there?' });
    await calls.hangUp(id);
  });

  it('one wait at a time: a second is 409 wait_in_progress, a plain speak is not refused, the first gets the sentence', async () => {
    const id = await liveCall('+14155552692');
    const first = calls.wait(id, { timeout_seconds: 20 });
    await untilWaitingForCaller(h.temporal, id);
    for (const second of [
      await calls.wait(id, { timeout_seconds: 5 }),
      await calls.speak(id, { text: 'Hello?', wait_for_response: true, timeout_seconds: 5 }),
    ]) {
      expect(second.status).toBe(409);
      expect((second.body as unknown as { error: { code: string } }).error.code).toBe('wait_in_progress');
    }
    expect((await calls.speak(id, { text: 'One moment.' })).body).toMatchObject({ spoke: true, call_ended: false });
    await sim.calls.say(id, 'Sure');
    expect((await first).body).toMatchObject({ timed_out: false, response_text: 'Sure' });
    await calls.hangUp(id);
  });

  it('a caller who hangs up during a wait ends it with the call: call_ended, not timed_out', async () => {
    const id = await liveCall('+14155552693');
    const waiting = calls.wait(id, { timeout_seconds: 60 });
    await untilWaitingForCaller(h.temporal, id);
    await sim.calls.hangUp(id);
    expect((await waiting).body).toMatchObject({ call_id: id, timed_out: false, call_ended: true, response_text: null });
  });
});
