import { verifySignature } from '../../src/domain/webhooks/signature';
import { workflowIds } from '../../workflows/definitions/ids';
import { createTenant, eventually, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

const DAY = 24 * 60 * 60 * 1000;

describe('lines: update, release and signing secrets', () => {
  const { h, tenant, receiver } = useSuite({ worker: true, receiver: true });

  const create = async (body: Record<string, unknown> = webhookLine()) => {
    const res = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body });
    expect(res.status).toBe(201);
    return res.body as { line: Record<string, unknown> & { id: string }; webhook_secret: string };
  };
  const patch = (id: string, body: unknown) => h.request('PATCH', `/api/v1/lines/${id}`, { key: tenant.keys.test, body });
  const rotate = (id: string) => h.request('POST', `/api/v1/lines/${id}/webhook-secret/rotate`, { key: tenant.keys.test });

  describe('PATCH', () => {
    it('changes only the fields given; null clears nullable ones', async () => {
      const { line } = await create(webhookLine({ begin_message: 'Hi', voice: 'aria', context_limit: 10 }));
      const res = await patch(line.id, { name: 'Renamed', begin_message: null, voice: null, language: 'he', recording_enabled: true });
      expect(res.status).toBe(200);
      expect(res.body.line).toMatchObject({
        name: 'Renamed',
        begin_message: null,
        voice: null,
        context_limit: 10,
        language: 'he',
        recording_enabled: true,
        webhook_url: line.webhook_url,
      });
    });

    it('refuses a language on a hosted line, judged on the effective mode', async () => {
      const { line: hosted } = await create({ name: 'h', mode: 'hosted', system_prompt: 'Be kind' });
      const pinned = await patch(hosted.id, { language: 'fr' });
      expect(pinned.status).toBe(400);
      expect(pinned.body.error.code).toBe('hosted_mode_language_pinning_unsupported');
      const { line: webhook } = await create();
      const toHosted = await patch(webhook.id, { mode: 'hosted', system_prompt: 'x', language: 'fr' });
      expect(toHosted.status).toBe(400);
      const toWebhook = await patch(hosted.id, { mode: 'webhook', webhook_url: 'https://a.example.test/h', language: 'fr' });
      expect(toWebhook.status).toBe(200);
      expect(toWebhook.body.line.language).toBe('fr');
    });

    it('switching webhook -> hosted clears a language pin; switching to audio clears webhook_url unless sent', async () => {
      const { line } = await create();
      expect((await patch(line.id, { language: 'es' })).body.line.language).toBe('es');
      const hosted = await patch(line.id, { mode: 'hosted', system_prompt: 'Be brief' });
      expect(hosted.body.line).toMatchObject({ mode: 'hosted', language: 'multi' });

      const { line: second } = await create();
      const audio = await patch(second.id, { mode: 'audio', audio_handler_url: 'wss://a.example.test/audio' });
      expect(audio.body.line).toMatchObject({ mode: 'audio', webhook_url: null });
      const { line: third } = await create();
      const kept = await patch(third.id, {
        mode: 'audio',
        audio_handler_url: 'wss://a.example.test/audio',
        webhook_url: 'https://keep.example.test/h',
      });
      expect(kept.body.line.webhook_url).toBe('https://keep.example.test/h');
    });

    it('requires the new mode’s field when the mode changes, but lets a webhook line drop its URL', async () => {
      const { line } = await create();
      const res = await patch(line.id, { mode: 'audio' });
      expect(res.status).toBe(422);
      expect(res.body.error.details).toEqual([{ field: 'audio_handler_url', message: 'Required when mode is audio' }]);
      expect((await patch(line.id, { webhook_url: null })).body.line.webhook_url).toBeNull();
      expect((await patch(line.id, { language: 'xx' })).status).toBe(422);
      expect((await patch(line.id, { endpointing_ms: 2001 })).status).toBe(422);
    });
  });

  describe('DELETE', () => {
    it('releases the line and gives its number back; a released line cannot be changed', async () => {
      const { line } = await create();
      const res = await h.request('DELETE', `/api/v1/lines/${line.id}`, { key: tenant.keys.test });
      expect(res.status).toBe(200);
      expect(res.body.line).toMatchObject({ id: line.id, status: 'released' });
      await eventually(async () => {
        const record = [...h.simulator.state.numbers.values()].find((n) => n.phone_number === line.phone_number);
        return record?.status === 'released' ? true : undefined;
      });
      expect((await h.request('GET', `/api/v1/lines/${line.id}`, { key: tenant.keys.test })).body.line.status).toBe('released');
      const again = await h.request('DELETE', `/api/v1/lines/${line.id}`, { key: tenant.keys.test });
      expect(again.status).toBe(200);
      expect((await patch(line.id, { name: 'x' })).body.error.code).toBe('line_released');
      expect((await rotate(line.id)).body.error.code).toBe('line_released');
    });

    it('is 404 for another workspace’s line', async () => {
      const { line } = await create();
      const other = await createTenant(h.db);
      expect((await h.request('DELETE', `/api/v1/lines/${line.id}`, { key: other.keys.test })).status).toBe(404);
    });
  });

  describe('signing secrets', () => {
    it('shows the secret once, at creation, and signs deliveries with it', async () => {
      const headers = { 'idempotency-key': `secret-${Date.now()}` };
      const first = await h.request('POST', '/api/v1/lines', {
        key: tenant.keys.test,
        body: webhookLine({ webhook_url: receiver.url }),
        headers,
      });
      expect(first.body.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
      const replay = await h.request('POST', '/api/v1/lines', {
        key: tenant.keys.test,
        body: webhookLine({ webhook_url: receiver.url }),
        headers,
      });
      expect(replay.body.webhook_secret).toBeUndefined();
      expect(JSON.stringify((await h.request('GET', `/api/v1/lines/${first.body.line.id}`, { key: tenant.keys.test })).body)).not.toContain(
        first.body.webhook_secret,
      );
      const stored = await h.db('line_webhook_secrets').where({ line_id: first.body.line.id });
      expect(JSON.stringify(stored)).not.toContain(first.body.webhook_secret);

      const before = receiver.requests.length;
      const test = await h.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: first.body.line.id } });
      expect(test.body.delivery.status).toBe('success');
      const [delivered] = receiver.requests.slice(before);
      expect(
        verifySignature({
          secret: first.body.webhook_secret,
          headers: delivered.headers as Record<string, string>,
          rawBody: delivered.rawBody,
        }),
      ).toEqual({ valid: true });
    });

    it('rotates: stage, refuse within 24 h, promote after 24 h; deliveries switch to the promoted secret', async () => {
      const { line, webhook_secret: original } = await create(webhookLine({ webhook_url: receiver.url }));
      const staged = await rotate(line.id);
      expect(staged.status).toBe(200);
      expect(staged.body).toEqual({
        webhook_secret: expect.stringMatching(/^[0-9a-f]{64}$/),
        rotated_at: expect.any(String),
        promoted_previous_next: false,
      });
      expect(staged.body.webhook_secret).not.toBe(original);

      const signedWith = async () => {
        const before = receiver.requests.length;
        await h.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: line.id } });
        const [req] = receiver.requests.slice(before);
        // The API signs with its own clock, which this test moves a day ahead: the receiver checks the timestamp against it.
        const now = h.clock.now();
        return (secret: string) =>
          verifySignature({ secret, headers: req.headers as Record<string, string>, rawBody: req.rawBody, now }).valid;
      };
      // The current secret keeps signing while the next one is staged.
      let check = await signedWith();
      expect(check(original)).toBe(true);
      expect(check(staged.body.webhook_secret)).toBe(false);

      h.clock.advance(DAY - 60_000);
      const early = await rotate(line.id);
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe('secret_rotation_too_soon');
      expect(Date.parse(early.body.error.details[0].message)).toBe(Date.parse(staged.body.rotated_at) + DAY);

      h.clock.advance(60_000);
      const promoted = await rotate(line.id);
      expect(promoted.status).toBe(200);
      expect(promoted.body.promoted_previous_next).toBe(true);
      expect(promoted.body.webhook_secret).not.toBe(staged.body.webhook_secret);
      check = await signedWith();
      expect(check(staged.body.webhook_secret)).toBe(true);
      expect(check(original)).toBe(false);

      const states = await h.db('line_webhook_secrets').where({ line_id: line.id }).orderBy('created_at').pluck('state');
      expect(states).toEqual(['retired', 'current', 'next']);
    });

    it('serialises concurrent rotations: one stages, the others are told to wait', async () => {
      const { line } = await create();
      const results = await Promise.all([rotate(line.id), rotate(line.id), rotate(line.id)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      expect(await h.db('line_webhook_secrets').where({ line_id: line.id, state: 'next' }).count('id as n')).toEqual([{ n: '1' }]);
    });

    it('keeps one workflow per line for rotations, ended when the line is released', async () => {
      const { line } = await create();
      await rotate(line.id);
      const handle = h.temporal.workflow.getHandle(workflowIds.lineSecrets(line.id));
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await h.request('DELETE', `/api/v1/lines/${line.id}`, { key: tenant.keys.test });
      await eventually(async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined));
    });
  });
});
