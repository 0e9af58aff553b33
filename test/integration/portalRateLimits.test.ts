import { mintUserKey } from '../../src/domain/keys/userKeys';
import { RATE_LIMITS } from '../../src/domain/limits/policies';
import { PortalClient, signUpOperator } from '../support/portalClient';
import { useSuite } from '../support/suite';

/**
 * The portal spends the API's rate limits (issue 27, L15): a signed-in operator is held to the
 * same rows, in the same buckets (per workspace and environment), as the workspace's API keys,
 * so neither path adds to the other's allowance.
 */
describe('portal changes under the API rate limits', () => {
  const { h } = useSuite({ portal: true });

  async function ownerWithKey() {
    const owner = await signUpOperator(h, 'limits');
    const user = (await h.db('users').where({ id: owner.userId }).first())!;
    const key = (await mintUserKey(h.db, { user, environment: 'test', kind: 'standard', name: 'api' })).plaintext;
    return { ...owner, key };
  }

  const portalLine = (client: PortalClient, fields: Record<string, string>) =>
    client.submit('/portal/lines?env=test', '/portal/lines', { env: 'test', name: 'Portal line', ...fields });
  const hosted = { mode: 'hosted', system_prompt: 'You answer the front desk.' };

  it('refuses the portal a line once the API spent lines.create, and the API once the portal did; a malformed form spends nothing', async () => {
    // Numbers are provisioned by the worker: without one, every create would wait out lineProvisionWaitMs.
    await h.startWorker();
    const { client, key, workspaceId } = await ownerWithKey();
    const { limit } = RATE_LIMITS['lines.create'];
    for (let i = 0; i < limit - 1; i += 1) {
      const created = await h.request('POST', '/api/v1/lines', { key, body: { name: `API ${i}`, ...hosted } });
      expect(created.status).toBe(201);
    }
    // A form the line rules refuse does not use up the last one.
    expect((await portalLine(client, { mode: 'teleport' })).status).toBe(422);
    expect((await portalLine(client, hosted)).status).toBe(201);

    const refused = await portalLine(client, hosted);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-policy')).toBe(`${limit};w=3600`);
    const lines = await h.db('lines').where({ workspace_id: workspaceId, environment: 'test' }).count<{ count: string }[]>({ count: '*' });
    expect(Number(lines[0].count)).toBe(limit);
    // The API shares the count.
    expect((await h.request('POST', '/api/v1/lines', { key, body: { name: 'One more', ...hosted } })).status).toBe(429);
  });

  it('counts portal disclosures against the API’s row, and refuses both past it', async () => {
    const { client, key } = await ownerWithKey();
    const { limit } = RATE_LIMITS['disclosures.create'];
    for (let i = 0; i < limit; i += 1) {
      const added = await client.submit('/portal/compliance?env=test', '/portal/compliance/disclosures', {
        env: 'test',
        form: 'disclosure',
        message: `Disclosure ${i}: you are speaking with an AI.`,
        language: 'en',
        jurisdiction: 'US',
      });
      expect(added.status).toBe(303);
    }
    const api = await h.request('POST', '/api/v1/disclosures', { key, body: { message: 'One too many.' } });
    expect(api.status).toBe(429);
    expect(api.body.error.code).toBe('rate_limited');
    const portal = await client.submit('/portal/compliance?env=test', '/portal/compliance/disclosures', {
      env: 'test',
      form: 'disclosure',
      message: 'Still one too many.',
    });
    expect(portal.status).toBe(429);
    expect(portal.text).toContain('Rate limit of 20 per 3600 s exceeded');
  });
});
