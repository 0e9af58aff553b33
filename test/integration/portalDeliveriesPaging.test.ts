import crypto from 'node:crypto';
import { createLineInPortal, signUpOperator, type PortalResponse } from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * Issue 30 item 5, the deliveries list beyond its newest 100 attempts, as an operator over HTTP: an "Older
 * deliveries" link pages by cursor with the filters kept, every attempt is listed once (attempts sharing a
 * millisecond included), and another workspace's attempts never show.
 */
describe('portal: the deliveries list pages by cursor', () => {
  const { h } = useSuite({ portal: true });

  const idsOf = (page: PortalResponse) => [...page.text.matchAll(/data-delivery-id="([^"]+)"/g)].map((m) => m[1]);
  const olderLinkOf = (page: PortalResponse) => /id="older" href="([^"]+)"/.exec(page.text)?.[1].replace(/&amp;/g, '&');

  /** `count` attempts of the workspace's line, one event each, every third one failed; pairs share a millisecond. */
  async function deliveriesOf(workspaceId: string, lineId: string, count: number) {
    const base = Date.parse('2026-11-20T12:00:00Z');
    const tenant = { workspace_id: workspaceId, environment: 'test', line_id: lineId };
    const events = Array.from({ length: count }, (_, i) => ({
      id: crypto.randomUUID(),
      ...tenant,
      event_type: 'call_ended',
      target: 'webhook',
      payload: {},
      created_at: new Date(base + Math.floor(i / 2) * 1000),
    }));
    await h.db('webhook_events').insert(events);
    const attempts = events.map((event, i) => ({
      id: crypto.randomUUID(),
      event_id: event.id,
      ...tenant,
      event_type: 'call_ended',
      url: 'https://agent.example/hooks',
      attempt: 1,
      status: i % 3 === 0 ? 'failed' : 'success',
      request_body: JSON.stringify({ event: 'call_ended' }),
      created_at: event.created_at,
    }));
    await h.db('webhook_deliveries').insert(attempts);
    // Newest first, as the list orders them: by time, then by id.
    return attempts.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1));
  }

  it('reaches the 101st attempt and beyond through "Older deliveries", keeping the filters; never another workspace’s', async () => {
    const owner = await signUpOperator(h, 'paging');
    const { lineId } = await createLineInPortal(owner.client, { name: 'Paging', mode: 'hosted', system_prompt: 'You answer.' });
    const attempts = await deliveriesOf(owner.workspaceId, lineId, 330);
    const stranger = await signUpOperator(h, 'paging-other');
    const strangerLine = await createLineInPortal(stranger.client, { name: 'Other', mode: 'hosted', system_prompt: 'You answer.' });
    const strangers = new Set<string>((await deliveriesOf(stranger.workspaceId, strangerLine.lineId, 30)).map((attempt) => attempt.id));

    // Unfiltered: 100, 100, 100, then the last 30, with no link after it.
    const seen: string[] = [];
    let page = await owner.client.get('/portal/deliveries?env=test');
    for (;;) {
      expect(page.status).toBe(200);
      seen.push(...idsOf(page));
      const older = olderLinkOf(page);
      if (!older) break;
      expect(older).toMatch(/^\/portal\/deliveries\?env=test&cursor=/);
      page = await owner.client.get(older);
    }
    expect(seen).toEqual(attempts.map((attempt) => attempt.id));
    expect(seen.some((id) => strangers.has(id))).toBe(false);

    // Filtered to failed attempts (110 of them): the second page keeps the filter and holds attempts 101 to 110.
    const failed = attempts.filter((attempt) => attempt.status === 'failed').map((attempt) => attempt.id);
    expect(failed).toHaveLength(110);
    const first = await owner.client.get(`/portal/deliveries?env=test&status=failed&line_id=${lineId}`);
    expect(idsOf(first)).toEqual(failed.slice(0, 100));
    const older = olderLinkOf(first)!;
    expect(new URL(older, 'http://portal').searchParams.get('status')).toBe('failed');
    expect(new URL(older, 'http://portal').searchParams.get('line_id')).toBe(lineId);
    const second = await owner.client.get(older);
    expect(idsOf(second)).toEqual(failed.slice(100));
    expect(second.text).toContain('<option value="failed" selected');
    expect(olderLinkOf(second)).toBeUndefined();

    // A forged cursor is the page's own 422, naming the field.
    const forged = await owner.client.get('/portal/deliveries?env=test&cursor=yesterday');
    expect(forged.status).toBe(422);
    expect(forged.text).toContain('<code>cursor</code>');
  });
});
