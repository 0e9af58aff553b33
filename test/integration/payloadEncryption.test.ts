import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { payloadEncryptionCodec } from '../../src/platform/codecs/payloadEncryption';
import { generateSecretsKey, keyIdOf, parseKeyMaterial } from '../../src/platform/crypto/secretBox';
import { dataConverterWith } from '../../src/platform/temporal/client';
import { exportHistory, replayHistoryFile } from '../../src/platform/temporal/histories';
import { transformHistoryPayloads } from '../../src/platform/temporal/historyPayloads';
import { remoteNumber } from '../support/fixtures';
import { createTenant, untilLineActive, webhookLine } from '../support/harness';
import { runCli } from '../support/cliRun';
import { useSuite } from '../support/suite';
import { encryptedByClientsAndWorkers } from '../support/payloadCodec';

/**
 * Encrypted Temporal payloads (security review L10), as an operator and an attacker meet them: the
 * Temporal server stores ciphertext only; the codec endpoint decrypts for the codec token's bearer
 * (the Temporal UI and the `temporal` CLI use it) and for nobody else; `history export` writes the
 * decrypted history and `history replay` takes it encrypted or decrypted, also after a key rotation.
 */
describe('encrypted workflow payloads', () => {
  let dir: string;
  const codecToken = generateSecretsKey();
  const uiOrigin = 'http://127.0.0.1:8233';
  // Declared before the suite so that it runs while the harness is still open (jest runs afterAll hooks in order).
  afterAll(async () => {
    if (callId) await h.request('POST', `/api/v1/calls/${callId}/hangup`, { key: tenantKey });
  });
  const { h } = useSuite({
    worker: true,
    tenant: 'none',
    overrides: { temporalCodecToken: codecToken, temporalCodecCorsOrigins: [uiOrigin] },
  });
  const keyA = process.env.TEMPORAL_PAYLOAD_KEY!;
  const keyB = generateSecretsKey();
  let tenantKey: string;
  let lineId: string;
  let lineNumber: string;
  let callId: string;
  let callee: string;

  /** The history exactly as the Temporal server keeps it: read without any codec. */
  const rawHistory = async (workflowId: string) =>
    temporal.api.history.v1.History.create(
      await new Client({ connection: h.temporal.connection, namespace: h.config.temporalNamespace }).workflow
        .getHandle(workflowId)
        .fetchHistory(),
    );
  const serialized = (history: temporal.api.history.v1.History) => Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-payloads-'));
    const tenant = await createTenant(h.db);
    tenantKey = tenant.keys.test;
    const created = await h.request('POST', '/api/v1/lines', { key: tenantKey, body: webhookLine() });
    expect(created.status).toBeLessThan(300);
    lineId = created.body.line.id;
    const line = await untilLineActive(
      h.temporal,
      lineId,
      async () => (await h.request('GET', `/api/v1/lines/${lineId}`, { key: tenantKey })).body.line,
    );
    lineNumber = line.phone_number;
    await h.temporal.workflow.getHandle(`line-provision:${lineId}`).result();
    callee = remoteNumber();
    const placed = await h.request('POST', '/api/v1/calls', { key: tenantKey, body: { line_id: lineId, to_number: callee } });
    expect(placed.status).toBe(201);
    callId = placed.body.call.id;
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("stores no phone number in clear in the Temporal server's history: every payload a client or worker wrote is encrypted", async () => {
    for (const [workflowId, numbers] of [
      [`line-provision:${lineId}`, [lineNumber]],
      [callId, [callee, lineNumber]],
    ] as const) {
      const raw = await rawHistory(workflowId);
      const bytes = serialized(raw);
      for (const number of numbers) {
        expect({ workflowId, number, inClear: bytes.includes(number) || bytes.includes(number.slice(1)) }).toEqual({
          workflowId,
          number,
          inClear: false,
        });
      }
      // Every payload where a client or worker writes one carries the codec's encoding and key id.
      const seen: string[] = [];
      await transformHistoryPayloads(
        raw,
        async (payloads) => {
          for (const payload of payloads) seen.push(`${text(payload.metadata?.encoding)} ${text(payload.metadata?.['encryption-key-id'])}`);
          return payloads;
        },
        encryptedByClientsAndWorkers,
      );
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set([`binary/encrypted ${keyIdOf(parseKeyMaterial(keyA))}`]));
    }
    // The operator's export decrypts: the numbers are there, readable beside the payload bytes.
    const exported = JSON.stringify(await exportHistory(h.temporal, callId));
    expect(exported).toContain(callee);
    expect(exported).not.toContain('binary/encrypted');
  });

  describe('the codec endpoint', () => {
    const startInput = async () => {
      const raw = await rawHistory(callId);
      return raw.events[0].workflowExecutionStartedEventAttributes!.input!.payloads!.map((payload) => ({
        metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
        data: Buffer.from(payload.data ?? []).toString('base64'),
      }));
    };
    const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${h.apiUrl}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });

    it('decrypts for the bearer of the codec token, and refuses anyone else', async () => {
      const payloads = await startInput();
      for (const headers of [{}, { authorization: `Bearer ${generateSecretsKey()}` }, { authorization: `Bearer ${tenantKey}` }] as Array<
        Record<string, string>
      >) {
        const refused = await post('/temporal-codec/decode', { payloads }, headers);
        expect(refused.status).toBe(401);
        const body = await refused.text();
        expect(body).not.toContain(callee);
        expect(JSON.parse(body)).toEqual({ error: { code: 'unauthorized', message: expect.stringContaining('TEMPORAL_CODEC_TOKEN') } });
      }
      expect((await post(`/temporal-codec/${generateSecretsKey()}/decode`, { payloads })).status).toBe(401);

      const decoded = await post(
        '/temporal-codec/decode',
        { payloads },
        { authorization: `Bearer ${codecToken}`, 'x-namespace': h.config.temporalNamespace },
      );
      expect(decoded.status).toBe(200);
      const { payloads: plain } = (await decoded.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
      expect(Buffer.from(plain[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
      expect(Buffer.from(plain[0].data, 'base64').toString()).toContain(callee);
      // The Temporal UI's form: the token is the endpoint's last path segment.
      const viaPath = await post(`/temporal-codec/${codecToken}/decode`, { payloads });
      expect(viaPath.status).toBe(200);
      expect(((await viaPath.json()) as { payloads: unknown }).payloads).toEqual(plain);
      // Another namespace's payloads are not this codec's to open.
      const other = await post(
        '/temporal-codec/decode',
        { payloads },
        { authorization: `Bearer ${codecToken}`, 'x-namespace': 'elsewhere' },
      );
      expect(other.status).toBe(403);
      // Encoding (the CLI's `workflow start --codec-endpoint` input) gives this deployment's ciphertext.
      const encoded = await post('/temporal-codec/encode', { payloads: plain }, { authorization: `Bearer ${codecToken}` });
      expect(encoded.status).toBe(200);
      const [again] = ((await encoded.json()) as { payloads: Array<{ metadata: Record<string, string> }> }).payloads;
      expect(Buffer.from(again.metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
      expect(
        (await post('/temporal-codec/decode', { payloads: [{ data: 'not base64!' }] }, { authorization: `Bearer ${codecToken}` })).status,
      ).toBe(422);
    });

    it('does not exist where no codec token is configured', async () => {
      const token = h.config.temporalCodecToken;
      h.config.temporalCodecToken = undefined;
      try {
        for (const url of ['/temporal-codec/decode', `/temporal-codec/${token}/decode`]) {
          const answer = await post(url, { payloads: await startInput() }, { authorization: `Bearer ${token}` });
          expect({ url, status: answer.status }).toEqual({ url, status: 404 });
        }
      } finally {
        h.config.temporalCodecToken = token;
      }
    });

    it("answers the Temporal UI's preflight from its origin only", async () => {
      const preflight = (origin: string) =>
        fetch(`${h.apiUrl}/temporal-codec/${codecToken}/decode`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
        });
      const allowed = await preflight(uiOrigin);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(uiOrigin);
      expect(allowed.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/i);
      const foreign = await preflight('https://attacker.example');
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('serves the temporal CLI: `workflow show --codec-endpoint --codec-auth` prints the decrypted input, without them only ciphertext', async () => {
      const cli = process.env.TEMPORAL_CLI_PATH;
      if (!cli) throw new Error('TEMPORAL_CLI_PATH is not set by the global setup');
      // Asynchronously: the codec endpoint it calls is served by this process.
      const show = (extra: string[]) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
          execFile(
            cli,
            [
              'workflow',
              'show',
              '-w',
              callId,
              '--address',
              h.config.temporalAddress!,
              '--namespace',
              h.config.temporalNamespace,
              '-o',
              'json',
              ...extra,
            ],
            { encoding: 'utf8', timeout: 60_000 },
            (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
          ),
        );
      // The started event's input as the CLI prints it: encoding and data in base64 (proto JSON).
      const input = (stdout: string) => {
        const [payload] = JSON.parse(stdout).events[0].workflowExecutionStartedEventAttributes.input.payloads;
        const decode = (value: string) => Buffer.from(value, 'base64').toString('utf8');
        return { encoding: decode(payload.metadata.encoding), data: decode(payload.data) };
      };
      const plain = await show(['--codec-endpoint', `${h.apiUrl}/temporal-codec`, '--codec-auth', `Bearer ${codecToken}`]);
      expect(plain.stderr).toBe('');
      expect(input(plain.stdout)).toEqual({ encoding: 'json/plain', data: expect.stringContaining(`"to":"${callee}"`) });
      const raw = await show([]);
      expect(raw.code).toBe(0);
      expect(input(raw.stdout)).toEqual({ encoding: 'binary/encrypted', data: expect.not.stringContaining(callee) });
      const unauthorized = await show(['--codec-endpoint', `${h.apiUrl}/temporal-codec`]);
      expect(unauthorized.stdout).not.toContain(Buffer.from('json/plain').toString('base64'));
      expect(unauthorized.stdout).not.toContain(callee);
    });
  });

  describe('history export and replay, before and after a key rotation', () => {
    /** The operator CLI as the image runs it, from the run's production build (test/support/cliRun.ts). */
    function cli(args: string[], env: Record<string, string>) {
      const { status, stderr, json } = runCli([...args, '--json'], env);
      return { status, stderr, json };
    }

    it('a history written under key A exports decrypted and replays, encrypted or decrypted, once B encrypts and A is kept', async () => {
      const workflowId = `line-provision:${lineId}`;
      const encryptedFile = path.join(dir, 'encrypted.json');
      fs.writeFileSync(encryptedFile, JSON.stringify(await rawHistory(workflowId)));
      const rotated = `${keyB},${keyA}`;
      const bundle = { workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH! };

      // The CLI under the rotated key ring: the export is decrypted, the compliance team reads the number.
      const decryptedFile = path.join(dir, 'decrypted.json');
      const exported = cli(['history', 'export', lineId, '--out', decryptedFile], { TEMPORAL_PAYLOAD_KEY: rotated });
      expect(exported.stderr).toBe('');
      expect(exported).toMatchObject({ status: 0, json: { workflow_id: workflowId, file: decryptedFile } });
      const decrypted = fs.readFileSync(decryptedFile, 'utf8');
      expect(decrypted).toContain(lineNumber);
      expect(decrypted).not.toContain('binary/encrypted');
      for (const file of [encryptedFile, decryptedFile]) {
        expect(cli(['history', 'replay', file], { TEMPORAL_PAYLOAD_KEY: rotated })).toMatchObject({
          status: 0,
          json: { workflow_type: 'provisionLineWorkflow', result: 'pass' },
        });
      }

      // In process: both forms replay under the rotated ring; the decrypted one needs no key at all.
      const ring = payloadEncryptionCodec(rotated);
      expect(await replayHistoryFile(JSON.parse(fs.readFileSync(encryptedFile, 'utf8')), bundle, ring)).toMatchObject({ ok: true });
      expect(await replayHistoryFile(JSON.parse(decrypted), bundle)).toMatchObject({ ok: true });
      const rotatedClient = new Client({
        connection: h.temporal.connection,
        namespace: h.config.temporalNamespace,
        dataConverter: dataConverterWith(ring),
      });
      expect(JSON.stringify(await exportHistory(rotatedClient, workflowId))).toContain(lineNumber);

      // Once A is dropped, A's histories no longer open, and the failure names the missing key.
      const withoutA = await replayHistoryFile(JSON.parse(fs.readFileSync(encryptedFile, 'utf8')), bundle, payloadEncryptionCodec(keyB));
      expect(withoutA).toMatchObject({ ok: false });
      expect(withoutA.ok === false && withoutA.error).toContain(`${keyIdOf(parseKeyMaterial(keyA))}, which is not in TEMPORAL_PAYLOAD_KEY`);
    });
  });
});
