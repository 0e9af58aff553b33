import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSwitchboardClient, SwitchboardApiError } from '../../../sdk/client';

/**
 * The typed client against a local server that answers as the API does when it is busy or
 * refuses: what is retried, what is not, and what a refusal looks like to the caller.
 */
describe('typed client: retries and errors', () => {
  type Plan = (req: http.IncomingMessage, res: http.ServerResponse, attempt: number) => void;
  let server: http.Server;
  let baseUrl: string;
  let plan: Plan;
  let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        plan(req, res, seen.length);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen = [];
  });

  const client = () => createSwitchboardClient({ baseUrl, apiKey: 'sk_test_example', retry: { baseDelayMs: 10 } });
  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const envelope = (code: string, message: string) => ({ error: { code, message } });

  it('a 429 is retried after its Retry-After, then the answer is typed data', async () => {
    plan = (_req, res, attempt) =>
      attempt === 1
        ? json(res, 429, envelope('rate_limited', 'Slow down'), { 'retry-after': '0' })
        : json(res, 200, { balance: { credits: 500 } });
    const { data } = await client().GET('/api/v1/billing/balance');
    expect(data).toEqual({ balance: { credits: 500 } });
    expect(seen).toHaveLength(2);
    expect(seen[0].headers.authorization).toBe('Bearer sk_test_example');
  });

  it('a POST that honours Idempotency-Key gets one, the same on every attempt, and is retried after a network error', async () => {
    plan = (req, res, attempt) => (attempt === 1 ? req.socket.destroy() : json(res, 201, { call: { id: 'c1' } }));
    const { data } = await client().POST('/api/v1/calls', {
      body: { line_id: '6a1f0b7e-0000-4000-8000-000000000001', to_number: '+14155550100' },
    });
    expect(data).toEqual({ call: { id: 'c1' } });
    expect(seen).toHaveLength(2);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(seen[1].body).toBe(seen[0].body);
  });

  it("the caller's own Idempotency-Key is kept", async () => {
    plan = (_req, res) => json(res, 201, { id: 'm1' });
    await client().POST('/api/v1/messages', {
      body: { line_id: '6a1f0b7e-0000-4000-8000-000000000001', to: '+14155550100', text: 'Hi' },
      headers: { 'Idempotency-Key': 'order-42' },
    });
    expect(seen[0].headers['idempotency-key']).toBe('order-42');
  });

  it('a POST without idempotency is not repeated after a network error: the API may have acted', async () => {
    plan = (req) => req.socket.destroy();
    await expect(
      client().POST('/api/v1/calls/{id}/hangup', { params: { path: { id: '6a1f0b7e-0000-4000-8000-000000000002' } } }),
    ).rejects.toThrow();
    expect(seen).toHaveLength(1);
    expect(seen[0].headers['idempotency-key']).toBeUndefined();
  });

  it('a refusal is a SwitchboardApiError with the spec code, details, request id and Retry-After; 4xx are not retried', async () => {
    plan = (_req, res) =>
      json(
        res,
        402,
        { error: { code: 'insufficient_credits', message: 'Not enough credit', details: [{ field: 'balance', message: 'low' }] } },
        { 'x-request-id': 'req-1' },
      );
    const refused = await client()
      .GET('/api/v1/lines')
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SwitchboardApiError);
    expect(refused).toMatchObject({
      status: 402,
      code: 'insufficient_credits',
      details: [{ field: 'balance', message: 'low' }],
      requestId: 'req-1',
      retryAfterSeconds: null,
    });
    expect(seen).toHaveLength(1);
  });

  it('gives up after its retries, with the last answer as the error', async () => {
    plan = (_req, res) => json(res, 503, envelope('service_unavailable', 'Try later'), { 'retry-after': '0' });
    await expect(client().GET('/api/v1/lines')).rejects.toMatchObject({ status: 503, code: 'service_unavailable', retryAfterSeconds: 0 });
    expect(seen).toHaveLength(3);
  });
});
