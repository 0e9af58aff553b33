import { completedCallRow } from '../support/callRows';
import { createLineInPortal, signUpOperator, type PortalClient, type PortalResponse } from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * Issue 30 item 5, the portal's search over what was said in calls, as an operator over HTTP and as an attacker:
 * words find the calls whose transcript says them (either side, any case, typed wildcards taken literally),
 * never another workspace's or environment's call, never by the transcript's own field names.
 */
describe('portal search: words said in a call', () => {
  const { h } = useSuite({ portal: true });

  const callIdsOf = (page: PortalResponse) => [...page.text.matchAll(/data-call-id="([^"]+)"/g)].map((m) => m[1]);
  const find = (client: PortalClient, q: string, env = 'test') => client.get(`/portal/search?env=${env}&q=${encodeURIComponent(q)}`);

  /** A workspace with a line and calls, each with the transcript given (caller's and agent's lines), a minute apart. */
  async function workspaceWithCalls(tag: string, transcripts: string[][]) {
    const owner = await signUpOperator(h, tag);
    const { lineId } = await createLineInPortal(owner.client, { name: `Desk ${tag}`, mode: 'hosted', system_prompt: 'You answer.' });
    const base = Date.parse('2026-11-20T12:00:00Z');
    const calls = transcripts.map((said, i) =>
      completedCallRow(
        { workspaceId: owner.workspaceId, lineId },
        {
          created_at: new Date(base + i * 60_000),
          transcript: JSON.stringify(
            said.map((text, turn) => ({
              role: turn % 2 === 0 ? 'user' : 'assistant',
              text,
              timestamp: new Date(base + i * 60_000 + turn * 1000).toISOString(),
            })),
          ),
        },
      ),
    );
    await h.db('calls').insert(calls);
    return { ...owner, ids: calls.map((call) => call.id as string) };
  }

  it('lists the calls whose transcript says the words, newest first; nothing else, nobody else’s', async () => {
    const ws = await workspaceWithCalls('said', [
      ['I would like a refund for my order', 'Of course.'],
      ['Are you 100% sure?', 'Yes, I am.'],
      ['I have 1000 apples', 'That is a lot of apples.'],
      ['Hello', 'My colleague will process your REFUND today.'],
    ]);
    const stranger = await workspaceWithCalls('said-other', [['I want a refund too']]);
    const [refund, percent, apples, agentRefund] = ws.ids;

    // Either side's words, any case, newest first; the stranger's call that says them too never shows.
    const found = await find(ws.client, 'refund');
    expect(found.status).toBe(200);
    expect(callIdsOf(found)).toEqual([agentRefund, refund]);
    expect(found.text).toContain('Calls whose transcript says “refund”');
    expect(callIdsOf(await find(ws.client, 'PROCESS your refund'))).toEqual([agentRefund]);
    expect(callIdsOf(await find(stranger.client, 'refund'))).toEqual([stranger.ids[0]]);

    // What was typed is searched as typed: `%` and `_` are characters, not wildcards.
    expect(callIdsOf(await find(ws.client, '100%'))).toEqual([percent]);
    expect(callIdsOf(await find(ws.client, '1_00'))).toEqual([]);
    expect(callIdsOf(await find(ws.client, 'apples'))).toEqual([apples]);

    // Only what was said: the transcript's field names and roles match nothing.
    for (const q of ['assistant', 'timestamp', 'role']) expect((await find(ws.client, q)).text).toContain('id="no-match"');
    // Another environment of the same workspace has none of these calls.
    expect((await find(ws.client, 'refund', 'live')).text).toContain('Nothing in the live environment matches');
  });
});
