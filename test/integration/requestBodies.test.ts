import crypto from 'node:crypto';
import { nestsDeeperThan } from '../../api/middleware/jsonBody';
import { webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/**
 * Request bodies (security L3): read only after the route is matched and the key authenticated,
 * with a per-route size limit and a nesting limit checked before parsing.
 */
describe('request bodies', () => {
  const ctx = useSuite();
  const kb = (n: number) => n * 1024;

  it('an unauthenticated body is refused without being read: 401, not 400 or 413', async () => {
    const notJson = 'x'.repeat(kb(900));
    const res = await ctx.h.request('POST', '/api/v1/lines', { rawBody: notJson });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    const huge = await ctx.h.request('POST', '/api/v1/calls', {
      key: 'sk_test_not_a_real_key_at_all_000000',
      rawBody: 'y'.repeat(kb(2048)),
    });
    expect(huge.status).toBe(401);
    expect(huge.body.error.code).toBe('invalid_api_key');
  });

  it('each route has its own body limit: 64 KiB by default, more where the fields need it', async () => {
    const big = { line_id: crypto.randomUUID(), to_number: '+14155550123', padding: 'z'.repeat(kb(900)) };
    const call = await ctx.h.request('POST', '/api/v1/calls', { key: ctx.tenant.keys.test, body: big });
    expect(call.status).toBe(413);
    expect(call.body.error.code).toBe('payload_too_large');
    // A line's system prompt may be 20000 characters; escaped, that is far past 64 KiB.
    const prompt = '\u0001'.repeat(20_000);
    const line = await ctx.h.request('POST', '/api/v1/lines', {
      key: ctx.tenant.keys.test,
      body: webhookLine({ name: 'long prompt', system_prompt: prompt }),
    });
    expect(JSON.stringify(prompt).length).toBeGreaterThan(kb(64));
    expect(line.status).toBe(201);
    expect(line.body.line.system_prompt).toBe(prompt);
  });

  it('a deeply nested body is 400 invalid_json on an idempotent route, never a stack overflow', async () => {
    const depth = 30_000;
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const res = await ctx.h.request('POST', '/api/v1/calls', {
      key: ctx.tenant.keys.test,
      rawBody: nested,
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_json', details: [{ field: 'body' }] });
    // Deep nesting of 400 KB on an idempotent route: 4xx too (here the route's size limit).
    const deep400 = `${'['.repeat(kb(200))}${']'.repeat(kb(200))}`;
    const big = await ctx.h.request('POST', '/api/v1/messages', {
      key: ctx.tenant.keys.test,
      rawBody: deep400,
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    expect(big.status).toBeGreaterThanOrEqual(400);
    expect(big.status).toBeLessThan(500);
    expect(big.body.error.code).toEqual(expect.any(String));
    // Nesting inside a string is not nesting.
    const shallow = await ctx.h.request('POST', '/api/v1/calls', {
      key: ctx.tenant.keys.test,
      body: { line_id: crypto.randomUUID(), to_number: '+14155550123', x: '[{'.repeat(100) },
    });
    expect(shallow.status).toBe(422);
  });

  it('the nesting check reads bytes outside strings only', () => {
    expect(nestsDeeperThan(Buffer.from('{"a":[[[1]]]}'), 4)).toBe(false);
    expect(nestsDeeperThan(Buffer.from('{"a":[[[[1]]]]}'), 4)).toBe(true);
    expect(nestsDeeperThan(Buffer.from('{"a":"[[[[[[\\"[[[["}'), 2)).toBe(false);
    expect(nestsDeeperThan(Buffer.from('["é[[[[", {"b": ["ü"]}]'), 3)).toBe(false);
  });
});
