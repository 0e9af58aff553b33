/**
 * Records one real history per workflow type into test/histories/, for the replay test.
 * Run after a deliberate, versioned workflow change (`npm run histories:record`): it adds the
 * histories that are missing and keeps every file already there (re-recording one to make a
 * failing replay pass would hide that running workflows would break). Name files to record only
 * those (`npm run histories:record -- postNumberFeesWorkflow.json`).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { carrierCallbackHeaders } from '../../src/adapters/carrier/callbacks/signature';
import { generateSecretsKey } from '../../src/platform/crypto/secretBox';
import { LOOPBACK_NETWORKS } from '../../src/platform/net/egress';
import { startEphemeralStack } from '../../dev/infra/stack';
import { bundleWorkflows } from '../../src/platform/temporal/workflowBundle';
import { workflowIds } from '../../workflows/definitions/ids';
import { until } from './waits';
import { decryptedHistory } from '../../dev/temporalHistory';
import { untilWaitingForCaller } from './callWorkflow';

/** The files named on the command line; none named means all. */
const only = new Set(process.argv.slice(2));
const wanted = (file: string) => only.size === 0 || only.has(path.basename(file));

async function main(): Promise<void> {
  // Continue-as-new is suggested after 120 events (not 4,096), so a short call records a continued run.
  const stack = await startEphemeralStack({
    name: 'switchboard_histories',
    withTestServer: true,
    temporalDynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 120 },
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-histories-'));
  try {
    // Bundled as the build and the worker bundle it (src/platform/temporal/workflowBundle.ts).
    const code = await bundleWorkflows();
    const bundlePath = path.join(dir, 'bundle.js');
    fs.writeFileSync(bundlePath, code);
    Object.assign(process.env, {
      DATABASE_URL: stack.databaseUrl,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      WORKFLOW_BUNDLE_PATH: bundlePath,
      LOG_LEVEL: 'silent',
      SECRETS_KEY: generateSecretsKey(),
      // Clients and workers encrypt payloads as in production; histories are written decrypted (`decryptedHistory`).
      TEMPORAL_PAYLOAD_KEY: process.env.TEMPORAL_PAYLOAD_KEY ?? generateSecretsKey(),
      // The histories' receivers listen on loopback, as the tests' do (test/support/globalSetup.ts).
      OUTBOUND_ALLOWED_NETWORKS: process.env.OUTBOUND_ALLOWED_NETWORKS ?? LOOPBACK_NETWORKS.join(','),
    });
    // Imported after the environment is set: the harness reads it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createActiveLine, createTenant, startHarness, webhookLine } = require('./harness') as typeof import('./harness');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startReceiver } = require('./receiver') as typeof import('./receiver');
    const { startDelivery, publishEvent, publishDepsOf } =
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('../../src/domain/webhooks/publish') as typeof import('../../src/domain/webhooks/publish');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { recordEvent } = require('../../src/domain/webhooks/record') as typeof import('../../src/domain/webhooks/record');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { runCommand } = require('../../src/main/cli') as typeof import('../../src/main/cli');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { post } = require('../../src/domain/billing/ledger') as typeof import('../../src/domain/billing/ledger');
    const h = await startHarness({}, { messageBatching: { batchMax: 2, lingerMs: 600_000 } });
    try {
      await h.startWorker();
      const tenant = await createTenant(h.db);
      /** A new line of `lineBody` placing a call to `to`, with the call's speech as the simulator heard it. */
      const callOnNewLine = async (lineBody: Record<string, unknown>, to: string) => {
        const line = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: lineBody });
        const placed = await h.request('POST', '/api/v1/calls', {
          key: tenant.keys.test,
          body: { line_id: line.body.line.id, to_number: to },
        });
        const callId = placed.body.call.id as string;
        const speech = () => h.simulator.state.calls.speechFor(callId) ?? [];
        const untilSpoken = (probe: () => boolean, what: string) => until(probe, what, { timeoutMs: 10_000, intervalMs: 50 });
        return { callId, speech, untilSpoken };
      };
      const out = path.resolve(__dirname, '../histories');
      fs.mkdirSync(out, { recursive: true });

      const active = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
      await save(h, workflowIds.provisionLine(active.body.line.id), path.join(out, 'provisionLineWorkflow.active.json'));

      const purge = await h.temporal.workflow.start('purgeExpiredRecordsWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `maintenance-purge-${Date.now()}`,
      });
      await save(h, purge.workflowId, path.join(out, 'purgeExpiredRecordsWorkflow.json'));

      // A line whose secret is rotated twice (staged, then promoted 24 h later), then released.
      const rotated = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
      const lineId = rotated.body.line.id;
      await h.request('POST', `/api/v1/lines/${lineId}/webhook-secret/rotate`, { key: tenant.keys.test });
      h.clock.advance(24 * 60 * 60 * 1000);
      await h.request('POST', `/api/v1/lines/${lineId}/webhook-secret/rotate`, { key: tenant.keys.test });
      await h.request('DELETE', `/api/v1/lines/${lineId}`, { key: tenant.keys.test });
      await save(h, workflowIds.releaseLine(lineId), path.join(out, 'releaseLineWorkflow.json'));
      await save(h, workflowIds.lineSecrets(lineId), path.join(out, 'lineSecretsWorkflow.json'));

      // A delivery that fails once (the receiver answers 500), then succeeds after the 5 s backoff.
      const receiver = await startReceiver();
      try {
        const hooked = await h.request('POST', '/api/v1/lines', {
          key: tenant.keys.test,
          body: webhookLine({ webhook_url: receiver.url }),
        });
        const callEnded = () => ({
          workspaceId: tenant.workspaceId,
          environment: 'test' as const,
          lineId: hooked.body.line.id as string,
          type: 'call_ended' as const,
          target: 'webhook' as const,
          payload: { duration_sec: 1 },
          now: new Date(),
        });
        receiver.script({ status: 500 });
        const eventId = await recordEvent(h.db, callEnded());
        await startDelivery(h.temporal, h.config.taskQueue, eventId, 'call_ended');
        await save(h, workflowIds.deliverEvent(eventId), path.join(out, 'deliverEventWorkflow.retried.json'));

        // Issue 14: the publisher's own first attempt fails (500), so the retry workflow starts at attempt 2.
        receiver.script({ status: 500 });
        const published = await publishEvent(
          publishDepsOf({ config: h.config, db: h.db, temporal: h.temporal, now: () => new Date() }),
          callEnded(),
        );
        await save(h, workflowIds.deliverEvent(published.eventId), path.join(out, 'deliverEventWorkflow.from-attempt-2.json'));
      } finally {
        await receiver.close();
      }

      // Auto-charge: a low balance with a card on file, topped up once through a pending attempt
      // (the run stays open, idle). autoChargeWorkflow.charged.json is the same before the
      // pending-attempt patch; it is kept as recorded then.
      await runCommand(h.db, ['payment-method', 'add'], { workspace: tenant.workspaceId, card: '4242424242424242', exp: '12/40' });
      const tenantBilling = { workspaceId: tenant.workspaceId, environment: 'live' as const };
      await post(h.db, {
        tenant: tenantBilling,
        type: 'call_charge',
        amountCents: -300,
        description: 'Call',
        idempotencyRef: `history:${Date.now()}`,
        at: new Date(),
      });
      await h.temporal.workflow.signalWithStart('autoChargeWorkflow', {
        workflowId: workflowIds.autoCharge(tenant.workspaceId, 'live'),
        taskQueue: h.config.taskQueue,
        args: [tenantBilling],
        signal: 'balanceLow',
      });
      await until(
        async () => !!(await h.db('ledger_transactions').where({ workspace_id: tenant.workspaceId, type: 'auto_recharge' }).first()),
        'the auto-recharge',
        { timeoutMs: 10_000, intervalMs: 100 },
      ).catch(() => undefined);
      await saveOpen(h, workflowIds.autoCharge(tenant.workspaceId, 'live'), path.join(out, 'autoChargeWorkflow.pending-attempt.json'));

      const close = await h.temporal.workflow.start('closeSpendPeriodWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `close-${Date.now()}`,
        args: [{ nominalTime: '2026-02-01T00:00:00.000Z' }],
      });
      await save(h, close.workflowId, path.join(out, 'closeSpendPeriodWorkflow.json'));

      // A call: dialed, answered, hung up through the API, settled.
      const callLine = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
      const placed = await h.request('POST', '/api/v1/calls', {
        key: tenant.keys.test,
        body: { line_id: callLine.body.line.id, to_number: '+14155552671' },
      });
      const callId = placed.body.call.id;
      await until(async () => (await h.db('calls').where({ id: callId }).first()).status === 'in_progress', 'the answer', {
        timeoutMs: 10_000,
        intervalMs: 100,
      }).catch(() => undefined);
      await h.request('POST', `/api/v1/calls/${callId}/hangup`, { key: tenant.keys.test });
      await save(h, callId, path.join(out, 'callWorkflow.hangup.json'));
      // The same call with its events published inline (local activities, the `call-events-inline` patch).
      await save(h, callId, path.join(out, 'callWorkflow.v3-events-inline-hangup.json'));

      // One pass of the webhook sweeper (its schedule runs it every 5 s).
      const sweep = await h.temporal.workflow.start('sweepStrandedEventsWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `webhooks-sweep-${Date.now()}`,
      });
      await save(h, sweep.workflowId, path.join(out, 'sweepStrandedEventsWorkflow.json'));

      // One pass of the SMS dispatch sweep (its schedule runs it every 5 s; issue 33).
      const messageSweep = await h.temporal.workflow.start('sweepUndispatchedMessagesWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `messages-dispatch-sweep-${Date.now()}`,
      });
      await save(h, messageSweep.workflowId, path.join(out, 'sweepUndispatchedMessagesWorkflow.json'));

      // One pass of the Telnyx inbox sweeper (its schedule runs it every 5 s on a deployment with Telnyx).
      const inboxSweep = await h.temporal.workflow.start('sweepTelnyxInboxWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `telnyx-inbox-sweep-${Date.now()}`,
      });
      await save(h, inboxSweep.workflowId, path.join(out, 'sweepTelnyxInboxWorkflow.json'));

      // One pass of the call-copy sweeper (its schedule runs it every 5 minutes).
      const copySweep = await h.temporal.workflow.start('sweepCallCopiesWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `recordings-sweep-${Date.now()}`,
      });
      await save(h, copySweep.workflowId, path.join(out, 'sweepCallCopiesWorkflow.json'));

      // One run of the recordings retention (its schedule runs it daily).
      const retention = await h.temporal.workflow.start('recordingsRetentionWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `recordings-retention-${Date.now()}`,
      });
      await save(h, retention.workflowId, path.join(out, 'recordingsRetentionWorkflow.json'));

      // A conversation: a `{text}` reply, a streamed (NDJSON) reply, a long reply the caller
      // talks over (interrupted), then a hang-up through the API.
      const agent = await startReceiver();
      try {
        agent.respondWith((req) => {
          if (req.body.event !== 'message') return undefined;
          if (req.body.text === 'Stream it')
            return {
              status: 200,
              stream: [
                { afterMs: 0, line: { text: 'One.' } },
                { afterMs: 20, line: { text: 'Two.' } },
                { afterMs: 0, line: { done: true } },
              ],
            };
          if (req.body.text === 'Tell me everything')
            return { status: 200, body: JSON.stringify({ text: Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') }) };
          return { status: 200, body: JSON.stringify({ text: `You said: ${String(req.body.text)}` }) };
        });
        const {
          callId: talk,
          speech,
          untilSpoken,
        } = await callOnNewLine(webhookLine({ webhook_url: agent.url, begin_message: 'Hello.' }), '+14155552671');
        const say = (text: string, how: 'say' | 'barge-in' = 'say') =>
          h.simulator.control('POST', `/control/calls/${talk}/${how}`, { text });
        h.simulator.state.calls.wordsPerSecond = 40;
        await untilSpoken(() => speech()[0]?.state === 'done', 'the begin message');
        await say('Book a table');
        await untilSpoken(() => speech().length === 2 && speech()[1].state === 'done', 'the {text} reply');
        await say('Stream it');
        await untilSpoken(() => speech().length === 4 && speech()[3].state === 'done', 'the streamed reply');
        await say('Tell me everything');
        await untilSpoken(() => speech()[4]?.state === 'speaking', 'the long reply');
        await new Promise((resolve) => setTimeout(resolve, 300)); // pacing: the caller talks over a reply already under way
        await say('Stop, stop', 'barge-in');
        await untilSpoken(
          () =>
            agent.requests.some((r) => r.body.event === 'interrupted' && r.body.call_id === talk) &&
            ['speaking', 'done'].includes(speech()[5]?.state ?? ''),
          'the interruption and the next reply',
        );
        // Talking over a reply the carrier did not stop by itself: the workflow closes the playback deferral first.
        await untilSpoken(() => speech()[5]?.state === 'done', 'the reply after the interruption');
        await say('Tell me everything');
        await untilSpoken(() => speech()[6]?.state === 'speaking', 'the second long reply');
        await new Promise((resolve) => setTimeout(resolve, 300)); // pacing: the caller talks over a reply already under way
        await say('And then?');
        await untilSpoken(
          () => agent.requests.filter((r) => r.body.event === 'interrupted' && r.body.call_id === talk).length === 2,
          'the second interruption',
        );
        await h.request('POST', `/api/v1/calls/${talk}/hangup`, { key: tenant.keys.test });
        await save(h, talk, path.join(out, 'callWorkflow.turns.json'));
        // The same conversation with its replies' playback reports carried on the next signal, and the
        // barge-in closing that deferral first (the `call-turn-close-playback-deferral` patch).
        await save(h, talk, path.join(out, 'callWorkflow.v4-turns-deferred-playback.json'));
      } finally {
        await agent.close();
      }

      // A hosted call: the greeting, one model reply spoken sentence by sentence, a live-control
      // speak that waits for the answer, a DTMF press, then the caller hangs up.
      {
        const {
          callId: hostedCall,
          speech,
          untilSpoken,
        } = await callOnNewLine(
          { name: 'Hosted', mode: 'hosted', system_prompt: 'You are a helpful desk.', begin_message: 'Hello.', voice: 'french-louis' },
          '+14155552681',
        );
        const caller = (text: string) => h.simulator.control('POST', `/control/calls/${hostedCall}/say`, { text });
        h.simulator.state.calls.wordsPerSecond = 40;
        await untilSpoken(() => speech()[0]?.state === 'done', 'the greeting');
        await caller('Are you open today?');
        await untilSpoken(() => speech().length === 3 && speech().every((s) => s.state === 'done'), 'the hosted reply');
        const asking = h.request('POST', `/api/v1/calls/${hostedCall}/speak`, {
          key: tenant.keys.test,
          body: { text: 'Anything else?', wait_for_response: true, timeout_seconds: 10 },
        });
        await untilSpoken(() => speech().length === 4 && speech()[3].state === 'done', 'the control speech');
        await caller('No thanks');
        await asking;
        await h.request('POST', `/api/v1/calls/${hostedCall}/press`, { key: tenant.keys.test, body: { digits: '1#' } });
        await h.simulator.control('POST', `/control/calls/${hostedCall}/hangup`);
        await save(h, hostedCall, path.join(out, 'callWorkflow.hosted-control.json'));
      }

      // A hosted call whose model calls tools (`hosted-call-tools`): it presses a key, then says goodbye
      // and hangs up; before that the agent's own key press is noted in the transcript (`call-transcript-heard`).
      {
        const {
          callId: toolCall,
          speech,
          untilSpoken,
        } = await callOnNewLine(
          {
            name: 'Hosted tools',
            mode: 'hosted',
            system_prompt: 'You are a helpful desk.',
            tools: [{ type: 'press_digits' }, { type: 'hang_up' }],
          },
          '+14155552682',
        );
        await h.simulator.control('POST', '/control/model/replies', {
          reply: 'Pressing one.',
          match: 'menu',
          tool_calls: [{ name: 'press_digits', arguments: { digits: '1' } }],
        });
        await h.simulator.control('POST', '/control/model/replies', {
          reply: 'Goodbye!',
          match: 'menu',
          tool_calls: [{ name: 'hang_up', arguments: {} }],
        });
        h.simulator.state.calls.wordsPerSecond = 40;
        await until(
          async () => (await h.request('GET', `/api/v1/calls/${toolCall}`, { key: tenant.keys.test })).body.call.status === 'in_progress',
          'the answer',
          {
            timeoutMs: 10_000,
            intervalMs: 50,
          },
        );
        await h.request('POST', `/api/v1/calls/${toolCall}/press`, { key: tenant.keys.test, body: { digits: '2' } });
        await h.simulator.control('POST', `/control/calls/${toolCall}/say`, { text: 'Press one for the menu' });
        await untilSpoken(() => speech().some((s) => s.text === 'Goodbye!' && s.state === 'done'), 'the goodbye');
        await save(h, toolCall, path.join(out, 'callWorkflow.v6-hosted-tools.json'));
      }

      // Two SMS replies inside the 24-hour window, accepted together: one batch, each delivered and charged. (The API's
      // batches are two messages here, so which messages share one is known; sendMessageWorkflow.delivered.json is a
      // message's own workflow, from before batches.)
      {
        const smsLine = (await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() })).body.line;
        const ids: string[] = [];
        for (const peer of ['+14155550142', '+14155550143']) {
          await h.simulator.control('POST', '/control/messages/inbound', {
            from: peer,
            to: smsLine.phone_number,
            text: 'Is my order ready?',
            events_url: `${h.apiUrl}/carrier/messages`,
          });
          const sms = await h.request('POST', '/api/v1/messages', {
            key: tenant.keys.test,
            body: { line_id: smsLine.id, to: peer, text: 'Yes, ready for pickup.' },
          });
          ids.push(sms.body.id);
        }
        // The API starts the batch's send workflow right after answering (src/domain/messages/dispatch.ts).
        await h.messagesHandedOver();
        const { dispatch_batch_id: batchId } = await h.db('messages').where({ id: ids[0] }).first();
        await save(h, workflowIds.sendMessageBatch(batchId), path.join(out, 'sendMessageBatchWorkflow.two-delivered.json'));
      }

      await recordCallWorkflowV2(h, out);
      await recordAgentLineCall(h, out);

      // Issue 31: a campaign of one contact, whose callee answers and hangs up: the dispatcher's and its call's histories.
      // Dispatchers with `campaign-dials-calls` place the call and start its workflow themselves, and the call settles its
      // attempt. (campaignWorkflow.json started attempt workflows as children; campaignWorkflow.dial-batch.json and
      // campaignAttemptWorkflow.json, recorded before it, started them from a local activity.)
      const campaignLine = await createActiveLine(h, tenant.keys.test, webhookLine({ recording_enabled: true }));
      // Issue 32, item 2: the workspace deletes the carrier's copy once stored, so the copy's history holds that step too.
      await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { recordings: { delete_at_carrier: true } } });
      const campaign = await h.request('POST', '/api/v1/campaigns', {
        key: tenant.keys.test,
        // The API's clock was moved a day on above; the worker's is the real one, which the start is judged by.
        body: { line_ids: [campaignLine.id], contacts: [{ to_number: '+14155552671' }], start_at: new Date().toISOString() },
      });
      const campaignId = campaign.body.campaign.id as string;
      let campaignCall = '';
      await until(
        async () => {
          const attempt = await h.db('campaign_attempts').where({ campaign_id: campaignId }).first('call_id');
          const call = attempt && (await h.db('calls').where({ id: attempt.call_id }).first('id', 'status'));
          if (call?.status === 'in_progress') h.simulator.state.calls.hangUpByCaller(call.id);
          campaignCall = call?.id ?? '';
          return call?.status === 'completed';
        },
        'the campaign call to be answered and hung up',
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      await save(h, campaignCall, path.join(out, 'callWorkflow.v10-campaign-call.json'));
      // The same call's history since its records and settlement became local activities (v10 was recorded before).
      await save(h, campaignCall, path.join(out, 'callWorkflow.v11-records-inline.json'));
      await save(h, workflowIds.campaign(campaignId), path.join(out, 'campaignWorkflow.dials-calls.json'));
      // Issue 32: the same call asks for its durable copy once it has ended, and its copy stores the recording.
      await save(h, campaignCall, path.join(out, 'callWorkflow.v12-durable-copy.json'));
      await until(async () => (await h.db('call_objects').where({ call_id: campaignCall })).length > 0, 'the call copy', {
        timeoutMs: 30_000,
      });
      // Stored, then deleted at the carrier (the copy's result says so).
      await save(h, workflowIds.callCopy(campaignCall), path.join(out, 'callCopyWorkflow.recording.json'));
      await h.request('PATCH', '/api/v1/settings', { key: tenant.keys.test, body: { recordings: { delete_at_carrier: false } } });

      // A campaign's call that a machine answers: its voicemail message is played to its end from the end of the
      // machine's greeting (the beep), then it hangs up. (callWorkflow.v8-campaign-voicemail was recorded before
      // end-of-greeting detection: the message played from the answer.)
      const machine = '+14155552672';
      h.simulator.state.calls.setOutcome(machine, 'answer', undefined, 'machine');
      const voicemail = await h.request('POST', '/api/v1/campaigns', {
        key: tenant.keys.test,
        body: {
          line_ids: [campaignLine.id],
          contacts: [{ to_number: machine }],
          start_at: new Date().toISOString(),
          answering_machine: { action: 'voicemail', voicemail_message: 'Please call the clinic back about tomorrow.' },
        },
      });
      let voicemailCall = '';
      await until(
        async () => {
          const attempt = await h.db('campaign_attempts').where({ campaign_id: voicemail.body.campaign.id }).first('call_id');
          voicemailCall = attempt?.call_id ?? '';
          return attempt !== undefined && (await h.db('calls').where({ id: attempt.call_id }).first('status')).status === 'completed';
        },
        'the voicemail campaign call to be played and hung up',
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      await save(h, voicemailCall, path.join(out, 'callWorkflow.v9-voicemail-after-greeting.json'));

      // Issue 31: the same campaign's call answered by a fax (the carrier's detection says `machine_kind: fax`): hung up
      // at once, no message, no wait for a greeting end (patch `faxHangsUp`).
      const fax = '+14155552673';
      h.simulator.state.calls.setOutcome(fax, 'answer', undefined, 'fax');
      const faxCampaign = await h.request('POST', '/api/v1/campaigns', {
        key: tenant.keys.test,
        body: {
          line_ids: [campaignLine.id],
          contacts: [{ to_number: fax }],
          start_at: new Date().toISOString(),
          answering_machine: { action: 'voicemail', voicemail_message: 'Please call the clinic back about tomorrow.' },
        },
      });
      let faxCall = '';
      await until(
        async () => {
          const attempt = await h.db('campaign_attempts').where({ campaign_id: faxCampaign.body.campaign.id }).first('call_id');
          faxCall = attempt?.call_id ?? '';
          return attempt !== undefined && (await h.db('calls').where({ id: attempt.call_id }).first('status')).status === 'completed';
        },
        'the fax campaign call to be hung up',
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      await save(h, faxCall, path.join(out, 'callWorkflow.v13-fax-hung-up.json'));

      // A caller sentence the carrier delivers again (a callback retried after a timeout), the same body signed afresh:
      // one turn, and the call goes on (patch `carrierRedeliveryOnce`).
      const repeatAgent = await startReceiver();
      try {
        repeatAgent.respondWith((req) =>
          req.body.event === 'message' ? { status: 200, body: JSON.stringify({ text: `You said: ${String(req.body.text)}` }) } : undefined,
        );
        const {
          callId: repeated,
          speech,
          untilSpoken,
        } = await callOnNewLine(webhookLine({ webhook_url: repeatAgent.url }), '+14155552674');
        await until(
          async () => (await h.db('calls').where({ id: repeated }).first('status')).status === 'in_progress',
          'the call to be answered',
          {
            timeoutMs: 10_000,
            intervalMs: 50,
          },
        );
        h.simulator.state.calls.wordsPerSecond = 40;
        const { carrier_call_id } = await h.db('calls').where({ id: repeated }).first('carrier_call_id');
        const sentence = JSON.stringify({
          type: 'call.utterance',
          call_id: repeated,
          carrier_call_id,
          text: 'Hello?',
          language: 'en',
          at: Date.now(),
        });
        for (const retry of [0, 1]) {
          await h.request('POST', '/carrier/events', {
            rawBody: sentence,
            headers: carrierCallbackHeaders({
              secret: h.config.carrierWebhookSecret!,
              rawBody: sentence,
              now: new Date(Date.now() + 1000 * retry),
            }),
          });
        }
        await untilSpoken(() => speech()[0]?.state === 'done', 'the reply');
        await h.simulator.control('POST', `/control/calls/${repeated}/say`, { text: 'Goodbye' });
        await untilSpoken(() => speech()[1]?.state === 'done', 'the second reply');
        await h.request('POST', `/api/v1/calls/${repeated}/hangup`, { key: tenant.keys.test });
        await save(h, repeated, path.join(out, 'callWorkflow.v14-sentence-redelivered.json'));
      } finally {
        await repeatAgent.close();
      }

      // Answered before the refusal (no wait), so the line and its workflow id stay (a refusal within the wait discards the line).
      h.simulator.state.provisionFault = 'reject';
      const waitMs = h.config.lineProvisionWaitMs;
      h.config.lineProvisionWaitMs = 0;
      const refused = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
      h.config.lineProvisionWaitMs = waitMs;
      await save(h, workflowIds.provisionLine(refused.body.line.id), path.join(out, 'provisionLineWorkflow.carrier-refused.json'));

      // Last, as they spend the balance: number fees of this month for the lines made above
      // (the first one is in its grace).
      const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1, 1));
      const fees = await h.temporal.workflow.start('postNumberFeesWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `fees-${Date.now()}`,
        args: [{ nominalTime: nextMonth.toISOString() }],
      });
      await save(h, fees.workflowId, path.join(out, 'postNumberFeesWorkflow.json'));

      // A scheduled monthly close (no nominal time): it closes again an hour later, skipped.
      await recordWithTimeSkipping(h, stack.temporalTestServerPath!, path.join(out, 'closeSpendPeriodWorkflow.scheduled.json'));
    } finally {
      await h.close();
    }
  } finally {
    await stack.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A scheduled-style close on Temporal's time-skipping test server, so its hour of waiting takes no time. */
async function recordWithTimeSkipping(h: import('./harness').Harness, testServerPath: string, file: string): Promise<void> {
  if (!wanted(file)) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { TestWorkflowEnvironment } = require('@temporalio/testing') as typeof import('@temporalio/testing');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Worker } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createActivities } = require('../../activities') as typeof import('../../activities');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadConfig } = require('../../src/platform/config') as typeof import('../../src/platform/config');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { noModel, noPayments, scratchRecordingStore } = require('./harness') as typeof import('./harness');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { EgressPolicy } = require('../../src/platform/net/egress') as typeof import('../../src/platform/net/egress');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseSecretsKey } = require('../../src/platform/crypto/secretBox') as typeof import('../../src/platform/crypto/secretBox');
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath } } });
  try {
    const taskQueue = `histories-${Date.now()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      activities: createActivities({
        config: loadConfig(),
        db: h.db,
        carrier: {} as import('../../src/adapters/carrier/port').CarrierAdapter,
        recordingStore: scratchRecordingStore(),
        payments: noPayments,
        model: noModel,
        temporal: () => env.client,
        taskQueue,
        carrierEventsUrl: 'http://127.0.0.1:9/carrier/events',
        secretsKey: () => parseSecretsKey(generateSecretsKey()),
        egress: new EgressPolicy(),
        now: () => new Date(),
      }),
    });
    const workflowId = `close-scheduled-${Date.now()}`;
    const history = await worker.runUntil(async () => {
      await env.client.workflow.execute('closeSpendPeriodWorkflow', { taskQueue, workflowId, args: [{}] });
      return env.client.workflow.getHandle(workflowId).fetchHistory();
    });
    await saveHistory(history, file);
  } finally {
    await env.teardown();
  }
}

type RecordingHarness = import('./harness').Harness;

/**
 * Calls of `call-workflow-v2`: the caller hanging up while the reply is spoken, a call long
 * enough to continue as new (both runs), a hosted conversation cut at its maximum duration while
 * the caller keeps talking, an inbound call; and the recovery workflow, for one call and as a sweep.
 */
async function recordCallWorkflowV2(h: RecordingHarness, out: string): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createTenant, eventually, webhookLine } = require('./harness') as typeof import('./harness');
  // A workspace of its own: line creation is limited to 10 an hour per workspace.
  const tenant = await createTenant(h.db);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startReceiver } = require('./receiver') as typeof import('./receiver');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { placeHold } = require('../../src/domain/billing/holds') as typeof import('../../src/domain/billing/holds');
  const key = tenant.keys.test;
  const statusOf = async (id: string) => (await h.db('calls').where({ id }).first()).status as string;
  const inProgress = (id: string) =>
    eventually(async () => ((await statusOf(id)) === 'in_progress' ? true : undefined), 20_000, `call ${id} to connect`);
  const agent = await startReceiver();
  try {
    h.simulator.state.calls.wordsPerSecond = 40;
    let hangUpOnBye: string | undefined;
    agent.respondWith((req) => {
      if (req.body.event !== 'message') return undefined;
      if (req.body.text === 'Thanks, bye' && hangUpOnBye) h.simulator.state.calls.hangUpByCaller(hangUpOnBye);
      return { status: 200, body: JSON.stringify({ text: `You said: ${String(req.body.text)}` }) };
    });

    // The caller hangs up while the agent's reply is being spoken.
    {
      const line = (await h.request('POST', '/api/v1/lines', { key, body: webhookLine({ webhook_url: agent.url }) })).body.line;
      const id = (await h.request('POST', '/api/v1/calls', { key, body: { line_id: line.id, to_number: '+14155552691' } })).body.call
        .id as string;
      hangUpOnBye = id;
      await inProgress(id);
      await h.simulator.control('POST', `/control/calls/${id}/say`, { text: 'Thanks, bye' });
      await save(h, id, path.join(out, 'callWorkflow.v2-caller-hangs-up-mid-reply.json'));
    }

    // Long enough to continue as new: turns, a control wait and speak, then a hang-up.
    {
      const line = (
        await h.request('POST', '/api/v1/lines', { key, body: webhookLine({ webhook_url: agent.url, begin_message: 'Hello.' }) })
      ).body.line;
      const id = (await h.request('POST', '/api/v1/calls', { key, body: { line_id: line.id, to_number: '+14155552692' } })).body.call
        .id as string;
      await inProgress(id);
      const firstRunId = (await h.temporal.workflow.getHandle(id).describe()).runId;
      const spoken = (text: string) =>
        eventually(
          async () => ((h.simulator.state.calls.speechFor(id) ?? []).some((s) => s.text === text && s.state === 'done') ? true : undefined),
          20_000,
          text,
        );
      for (let i = 1; i <= 20; i += 1) {
        if (i === 5) {
          const waiting = h.request('POST', `/api/v1/calls/${id}/wait`, { key, body: { timeout_seconds: 10 } });
          // The history records a wait that is parked before the caller answers.
          await untilWaitingForCaller(h.temporal, id);
          await h.simulator.control('POST', `/control/calls/${id}/say`, { text: 'Yes' });
          await waiting;
          await h.request('POST', `/api/v1/calls/${id}/speak`, { key, body: { text: 'Noted.' } });
        }
        await h.simulator.control('POST', `/control/calls/${id}/say`, { text: `Turn ${i}` });
        await spoken(`You said: Turn ${i}`);
      }
      await h.request('POST', `/api/v1/calls/${id}/hangup`, { key });
      await h.temporal.workflow.getHandle(id).result();
      const first = await h.temporal.workflow.getHandle(id, firstRunId).fetchHistory();
      if (!first.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes) throw new Error('the long call did not continue as new');
      await saveHistory(first, path.join(out, 'callWorkflow.v2-continued-first-run.json'));
      await save(h, id, path.join(out, 'callWorkflow.v2-continued-last-run.json'));
    }

    // A hosted conversation cut at its maximum duration while the caller keeps talking.
    {
      await h.simulator.control('POST', '/control/model/settings', { token_delay_ms: 300 });
      const line = (
        await h.request('POST', '/api/v1/lines', { key, body: { name: 'Hosted', mode: 'hosted', system_prompt: 'You are a desk.' } })
      ).body.line;
      const id = (
        await h.request('POST', '/api/v1/calls/conversation', {
          key,
          body: { line_id: line.id, to_number: '+14155552693', topic: 'the weather', max_duration_seconds: 10 },
        })
      ).body.call.id as string;
      await inProgress(id);
      for (let i = 0; i < 60; i += 1) {
        if ((await h.simulator.control('POST', `/control/calls/${id}/say`, { text: `More, part ${i}` })).status !== 202) break;
        await new Promise((resolve) => setTimeout(resolve, 500)); // pacing: a caller who talks every half second
      }
      await h.simulator.control('POST', '/control/model/settings', { token_delay_ms: 0 });
      await save(h, id, path.join(out, 'callWorkflow.v2-hosted-max-duration.json'));
    }

    // An inbound call, answered, then the caller hangs up.
    {
      const line = (await h.request('POST', '/api/v1/lines', { key, body: webhookLine({ webhook_url: agent.url }) })).body.line;
      await h.simulator.control('POST', '/control/calls/inbound', {
        from: '+14155553434',
        to: line.phone_number,
        events_url: `${h.apiUrl}/carrier/events`,
      });
      const row = await eventually(
        async () => (await h.db('calls').where({ line_id: line.id, direction: 'inbound' }).first()) ?? undefined,
        20_000,
        'the inbound call',
      );
      await inProgress(row.id);
      await h.simulator.control('POST', `/control/calls/${row.id}/hangup`);
      await save(h, row.id, path.join(out, 'callWorkflow.v2-inbound.json'));
    }

    // Recovery: a hang-up of a call whose workflow is gone, then a sweep of an old one.
    {
      const orphan = async (status: string, createdAt: Date) => {
        const line = (await h.request('POST', '/api/v1/lines', { key, body: webhookLine({ webhook_url: agent.url }) })).body.line;
        const id = crypto.randomUUID();
        await h.db('calls').insert({
          id,
          workspace_id: tenant.workspaceId,
          environment: 'test',
          line_id: line.id,
          direction: 'outbound',
          from_number: line.phone_number,
          to_number: '+14155552694',
          status,
          mode: 'webhook',
          zone: 'A',
          created_at: createdAt,
          started_at: status === 'in_progress' ? createdAt : null,
        });
        await placeHold(h.db, {
          tenant: { workspaceId: tenant.workspaceId, environment: 'test' },
          keyId: null,
          reference: `call:${id}`,
          amountCents: 13,
          at: createdAt,
        });
        return id;
      };
      const gone = await orphan('in_progress', new Date(Date.now() - 20_000));
      await h.request('POST', `/api/v1/calls/${gone}/hangup`, { key });
      await save(h, `call-recovery:${gone}`, path.join(out, 'recoverOrphansWorkflow.one-call.json'));
      await orphan('initiated', new Date(Date.now() - 30 * 60_000));
      const sweep = await h.temporal.workflow.start('recoverOrphansWorkflow', {
        taskQueue: h.config.taskQueue,
        workflowId: `recovery-sweep-${Date.now()}`,
        args: [{}],
      });
      await save(h, sweep.workflowId, path.join(out, 'recoverOrphansWorkflow.sweep.json'));
    }
  } finally {
    await agent.close();
  }
}

/**
 * An agent line's call (`agent-line-calls`): greeted, the caller talks with no wait pending long enough for the run
 * to continue as new (120 events here), and the next run's waits take the sentences kept for the agent (the latest
 * 20 of 25), then a speak-and-wait and a hang-up. Both runs are recorded.
 */
async function recordAgentLineCall(h: RecordingHarness, out: string): Promise<void> {
  const firstFile = path.join(out, 'callWorkflow.v7-agent-line-first-run.json');
  const lastFile = path.join(out, 'callWorkflow.v7-agent-line-last-run.json');
  if (!wanted(firstFile) && !wanted(lastFile)) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createTenant, eventually } = require('./harness') as typeof import('./harness');
  // A workspace of its own: line creation is limited to 10 an hour per workspace.
  const key = (await createTenant(h.db)).keys.test;
  const line = (await h.request('POST', '/api/v1/lines', { key, body: { name: 'Agent', mode: 'agent', begin_message: 'Hello.' } })).body
    .line;
  const id = (await h.request('POST', '/api/v1/calls', { key, body: { line_id: line.id, to_number: '+14155552695' } })).body.call
    .id as string;
  const handle = h.temporal.workflow.getHandle(id);
  await eventually(
    async () => ((await h.db('calls').where({ id }).first()).status === 'in_progress' ? true : undefined),
    20_000,
    'the agent call to connect',
  );
  const firstRunId = (await handle.describe()).runId;
  for (let i = 1; i <= 25; i += 1) await h.simulator.control('POST', `/control/calls/${id}/say`, { text: `Sentence ${i}` });
  await eventually(
    async () => {
      const said = (await h.request('GET', `/api/v1/calls/${id}`, { key })).body.call.transcript as Array<{ role: string }> | null;
      return (said ?? []).filter((entry) => entry.role === 'user').length === 25 ? true : undefined;
    },
    30_000,
    'every sentence in the transcript',
  );
  await eventually(
    async () => ((await handle.describe()).runId !== firstRunId ? true : undefined),
    30_000,
    'the agent call to continue as new',
  );
  for (const expected of ['Sentence 6', 'Sentence 7']) {
    const waited = await h.request('POST', `/api/v1/calls/${id}/wait`, { key, body: { timeout_seconds: 10 } });
    if (waited.body.response_text !== expected) throw new Error(`the wait answered ${waited.text}, not ${expected}`);
  }
  await h.request('POST', `/api/v1/calls/${id}/speak`, { key, body: { text: 'Go on.', wait_for_response: true, timeout_seconds: 10 } });
  await h.request('POST', `/api/v1/calls/${id}/hangup`, { key });
  await handle.result();
  const first = await decryptedHistory(h.temporal, id, firstRunId);
  if (!first.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes) throw new Error('the agent call did not continue as new');
  if (wanted(firstFile)) await saveHistory(first, firstFile);
  await save(h, id, lastFile);
}

/** Writes a history unless the file exists: recorded histories are never replaced. */
async function saveHistory(history: unknown, file: string): Promise<void> {
  if (fs.existsSync(file)) {
    console.log(`kept ${path.relative(process.cwd(), file)} (already recorded)`);
    return;
  }
  fs.writeFileSync(file, JSON.stringify(history, null, 2) + '\n');
  console.log(`recorded -> ${path.relative(process.cwd(), file)}`);
}

/** A workflow that is still running (waiting for its next signal): its history so far. */
async function saveOpen(h: { temporal: import('@temporalio/client').Client }, workflowId: string, file: string): Promise<void> {
  if (!wanted(file)) return;
  const history = await h.temporal.workflow.getHandle(workflowId).fetchHistory();
  await saveHistory(history, file);
}

async function save(h: { temporal: import('@temporalio/client').Client }, workflowId: string, file: string): Promise<void> {
  const handle = h.temporal.workflow.getHandle(workflowId);
  await handle.result();
  if (!wanted(file)) return;
  // The run that finished (a continued workflow's last run), its payloads decrypted: the replay test reads them plain.
  await saveHistory(await decryptedHistory(h.temporal, workflowId), file);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
