import { heard, onCall, speakFully, type CallPair } from './loop';
import { eventually, expectThat, type Check } from './runner';
import { deliveriesMentioning, pointConnection, type TelnyxSession } from './telnyxSide';

/**
 * A webhook Telnyx delivers twice changes nothing (review, Telnyx "Webhook delivery semantics":
 * "Identical webhooks may occasionally be delivered"; a failed primary delivery goes to the
 * failover URL). Telnyx signs its webhooks, so the kit cannot forge a duplicate; it provokes a
 * real one instead: for one call, the connection's webhook URL is the kit's relay, which hands
 * each delivery to the deployment unchanged and then answers 503, so Telnyx delivers the same
 * event again, re-signed, to its failover URL: the deployment. The connection is restored after.
 */

interface Relayed {
  id: string;
  type: string;
  status: number;
}

function eventOf(body: Buffer): { id: string; type: string } {
  try {
    const data = (JSON.parse(body.toString('utf8')) as { data?: { id?: unknown; event_type?: unknown } }).data;
    return { id: String(data?.id ?? '?'), type: String(data?.event_type ?? '?') };
  } catch {
    return { id: '?', type: 'unreadable' };
  }
}

const FORWARDED_HEADERS = ['content-type', 'telnyx-signature-ed25519', 'telnyx-timestamp', 'user-agent'];

export const duplicatesCheck: Check<TelnyxSession> = {
  id: 'duplicates',
  title: 'A webhook Telnyx delivers twice changes nothing',
  budgetMs: 5 * 60_000,
  optIn: {
    name: 'SMOKE_TELNYX_RELAY_WEBHOOKS',
    what:
      "for about a minute the connection's webhook URL points at this kit (which relays to the deployment, then fails so Telnyx " +
      'redelivers to its failover URL): every call on the connection then passes through the kit; opt in on a connection without other traffic',
  },
  async run(session, log) {
    const { connection, telnyx, connectionId } = session;
    expectThat(
      connection.primary.startsWith(session.api.baseUrl),
      `the connection's webhook URL is ${connection.primary}, not this deployment's (${session.api.baseUrl}/…)`,
    );
    const relayed: Relayed[] = [];
    session.receiver.route('POST', '/telnyx/relay', async ({ headers, body }) => {
      const forwarded = Object.fromEntries(
        FORWARDED_HEADERS.flatMap((name) => (typeof headers[name] === 'string' ? [[name, headers[name]]] : [])),
      );
      const answer = await fetch(connection.primary, { method: 'POST', headers: forwarded, body, signal: AbortSignal.timeout(10_000) });
      relayed.push({ ...eventOf(body), status: answer.status });
      return { status: 503, body: '{"error":"switchboard smoke kit: relayed; deliver to the failover URL"}' };
    });
    // The deployment's own failover URL (TELNYX_WEBHOOK_FAILOVER_URL) takes Telnyx's second delivery, else its primary.
    const failover = connection.failover ?? connection.primary;
    log(`pointing ${connection.name} at ${session.receiver.publicUrl}/telnyx/relay (failover: ${failover}) for one call`);
    session.restoreConnection = () => pointConnection(telnyx, connectionId, connection.name, connection.primary, connection.failover);
    await pointConnection(telnyx, connectionId, connection.name, `${session.receiver.publicUrl}/telnyx/relay`, failover);
    const since = new Date();
    let pair: CallPair;
    try {
      pair = await onCall(session, async (call) => {
        const said = Date.now();
        await speakFully(session, call.a, 'Deliveries made twice must change nothing, said the penguin.');
        await heard(session, call.b, 'penguin', said, 30_000);
        return call;
      });
    } finally {
      await session.restoreConnection();
      session.restoreConnection = undefined;
      log('connection webhook URLs restored');
    }
    expectThat(relayed.length > 0, 'Telnyx sent nothing to the relay: the inbound leg did not use the connection URL');
    const refusedByUs = relayed.filter((r) => r.status < 200 || r.status > 299);
    expectThat(
      refusedByUs.length === 0,
      `the deployment answered relayed events ${refusedByUs.map((r) => `${r.type} ${r.status}`).join(', ')}`,
    );
    const relayedIds = new Set(relayed.map((r) => r.id));
    const failovers = await eventually(
      'Telnyx listing its failover deliveries of the relayed events',
      async () => {
        const found = (await deliveriesMentioning(telnyx, session.b.phone_number, since)).filter(
          (d) => relayedIds.has(d.eventId) && d.url === failover && d.status !== undefined && d.status >= 200 && d.status < 300,
        );
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 60_000, everyMs: 5_000 },
    );
    await session.receiver.waitFor('B call_ended', (e) => e.callId === pair.b && e.type === 'call_ended', 60_000);
    const calls = (await session.api.callsOfLine(session.b.id)).filter((call) => Date.parse(call.created_at) >= since.getTime());
    expectThat(calls.length === 1, `B has ${calls.length} calls from this one call`);
    const counts = ['call_started', 'call_ended'].map((type) => [type, session.receiver.distinct(pair.b, type).length] as const);
    for (const [type, count] of counts) expectThat(count === 1, `B got ${count} ${type} events for one call`);
    const penguins = session.receiver.distinct(pair.b, 'message').filter((e) => /penguin/i.test(String(e.body.text)));
    expectThat(penguins.length === 1, `B got ${penguins.length} messages for one sentence`);
    const types = [...new Set(failovers.map((f) => f.eventType))].join(', ');
    return `${relayed.length} events delivered twice (relay, then Telnyx's failover: ${types}); one call, one call_started, one call_ended, one message`;
  },
};
