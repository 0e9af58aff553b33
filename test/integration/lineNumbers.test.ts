import crypto from 'node:crypto';
import { runCommand } from '../../src/main/cli';
import { customer } from '../support/customer';
import { createTenant, eventually, type Tenant } from '../support/harness';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * Choosing a line's number (issue 26 item 7), as a customer through POST /api/v1/lines on the
 * simulator: an area code, a number type, a country, or an owned number imported; a clear refusal
 * when nothing matches, with nothing left of the refused request.
 */

/** An owned number no simulator ever sells (US area code 564 has no inventory) and no other test holds. */
const ownedNumber = () => `+1564555${2000 + crypto.randomInt(8000)}`;

describe('choosing a line number', () => {
  const ctx = useSuite({ worker: true });
  const { h, tenant } = ctx;
  const { lines } = customer(ctx);
  const sim = simulator(ctx);

  const grant = (to: Tenant, phoneNumber: string) =>
    runCommand(h.db, ['number', 'grant'], { workspace: to.workspaceId, env: 'test', number: phoneNumber });
  const linesOf = (of: Tenant) => h.db('lines').where({ workspace_id: of.workspaceId }).pluck('id');
  const refusalOf = (res: { status: number; body: { error?: { code: string; details?: Array<{ field?: string }> } } }) => ({
    status: res.status,
    code: res.body.error?.code,
    fields: res.body.error?.details?.map((d) => d.field),
  });

  it('buys a local number in the area code asked, and says so on the line', async () => {
    const line = await lines.create({ area_code: '415' });
    expect(line.phone_number).toMatch(/^\+1415\d{7}$/);
    expect(line).toMatchObject({
      country: 'US',
      number_type: 'local',
      area_code: '415',
      number_source: 'purchased',
      provisioning_error: null,
    });
    const sold = (await sim.numbers.list()).numbers.find((n) => n.idempotency_key === `line:${line.id}`);
    expect(sold).toMatchObject({ phone_number: line.phone_number, country: 'US', number_type: 'local', origin: 'purchased' });
  });

  it('buys a toll-free number, in a toll-free prefix when asked, and a mobile one where the carrier sells them', async () => {
    expect((await lines.create({ number_type: 'toll_free' })).phone_number).toMatch(/^\+18(00|33|44|55|66|77|88)\d{7}$/);
    const in833 = await lines.create({ number_type: 'toll_free', area_code: '833' });
    expect(in833).toMatchObject({ number_type: 'toll_free', area_code: '833', phone_number: expect.stringMatching(/^\+1833\d{7}$/) });
    expect(await lines.create({ country: 'GB', number_type: 'mobile' })).toMatchObject({
      country: 'GB',
      number_type: 'mobile',
      phone_number: expect.stringMatching(/^\+447400900\d{3}$/),
    });
  });

  it('refuses a type the carrier does not sell in the country with number_unavailable, and creates nothing', async () => {
    const refused = await lines.post({ number_type: 'mobile' });
    expect(refusalOf(refused)).toEqual({ status: 422, code: 'number_unavailable', fields: ['number_type'] });
    expect(refused.body.error.message).toBe('The carrier does not offer mobile numbers in US');
    const nowhere = await lines.post({ country: 'FR' });
    expect(refusalOf(nowhere)).toEqual({ status: 422, code: 'number_unavailable', fields: ['country'] });
    expect(await linesOf(tenant)).toEqual([]);
    expect((await h.request('GET', '/api/v1/lines', { key: tenant.keys.test })).body.total).toBe(0);
  });

  it('refuses an area code with no numbers left and leaves nothing half-made: the first live line is still the free one', async () => {
    const refused = await lines.post({ area_code: '564' }, tenant.keys.live);
    expect(refusalOf(refused)).toEqual({ status: 422, code: 'number_unavailable', fields: ['area_code'] });
    expect(refused.body.error.message).toBe('No local numbers are available in area code 564 (US); try another area code or none');
    expect(await linesOf(tenant)).toEqual([]);

    // No card on file: a half-made line would count as the user's first and this one would be 402.
    const first = await lines.post({ area_code: '212' }, tenant.keys.live);
    expect(first.status).toBe(201);
    expect(first.body.line.grace_ends_at).not.toBeNull();
    expect(await linesOf(tenant)).toEqual([first.body.line.id]);
  });

  it('validates the criteria with the error envelope, before anything reaches the carrier', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ area_code: '416' }, 'area_code'], // Toronto: not a US area code
      [{ area_code: '800' }, 'area_code'], // toll-free, not local
      [{ area_code: '41a' }, 'area_code'],
      [{ country: 'XX' }, 'country'],
      [{ country: 'us' }, 'country'],
      [{ number_type: 'premium' }, 'number_type'],
      [{ phone_number: '4155550123' }, 'phone_number'],
      [{ phone_number: '+14155550123', area_code: '415' }, 'area_code'],
    ];
    for (const [fields, field] of cases) {
      const res = await lines.post(fields);
      expect({ fields, status: res.status, code: res.body.error.code }).toEqual({ fields, status: 422, code: 'validation_error' });
      expect(refusalOf(res).fields).toContain(field);
    }
    expect(await linesOf(tenant)).toEqual([]);
    // The number is chosen once: PATCH does not take the criteria.
    const line = await lines.create();
    expect((await lines.update(line.id, { area_code: '415' })).status).toBe(422);
  });

  it('imports a granted number the account owns; releasing the line detaches it and the account keeps it', async () => {
    const phoneNumber = ownedNumber();
    await sim.numbers.own(phoneNumber);
    await grant(tenant, phoneNumber);
    const line = await lines.create({ phone_number: phoneNumber });
    expect(line).toMatchObject({
      phone_number: phoneNumber,
      number_source: 'imported',
      country: 'US',
      number_type: 'local',
      area_code: null,
    });
    const owned = async () => (await sim.numbers.list()).owned.find((n) => n.phone_number === phoneNumber);
    expect(await owned()).toMatchObject({ routed_to_switchboard: true });

    expect((await lines.release(line.id)).status).toBe(200);
    await eventually(async () => ((await owned())?.routed_to_switchboard === false ? true : undefined));
    const record = (await sim.numbers.list()).numbers.find((n) => n.idempotency_key === `line:${line.id}`);
    expect(record).toMatchObject({ origin: 'imported', status: 'detached' });

    // Still the workspace's to bring again.
    expect((await lines.create({ phone_number: phoneNumber })).phone_number).toBe(phoneNumber);
  });

  it('refuses an import of a number another workspace holds, or the account does not own, with one answer', async () => {
    const held = ownedNumber();
    await sim.numbers.own(held);
    await grant(tenant, held);
    await lines.create({ phone_number: held });

    const other = await createTenant(h.db);
    const theirs = await lines.post({ phone_number: held }, other.keys.test);
    const nobodys = await lines.post({ phone_number: ownedNumber() }, other.keys.test);
    // Granted by the operator, but the carrier account does not own it: the carrier refuses the import.
    const notOwned = ownedNumber();
    await grant(tenant, notOwned);
    const unowned = await lines.post({ phone_number: notOwned });
    for (const refused of [theirs, nobodys, unowned]) {
      expect(refusalOf(refused)).toEqual({ status: 422, code: 'number_unavailable', fields: ['phone_number'] });
      expect(refused.body).toEqual(theirs.body);
    }
    expect(await linesOf(other)).toEqual([]);
    expect(await linesOf(tenant)).toHaveLength(1);
    // The operator cannot hand the number to a second workspace either.
    await expect(grant(other, held)).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('choosing a line number: a refusal known only after the 201', () => {
  const { h: slow } = useSuite({ worker: true, tenant: 'none', overrides: { lineProvisionWaitMs: 300 } });
  /**
   * A new tenant's line whose number the simulator holds past the API's wait (201, provisioning), then provisions
   * as `fault` says: the line as its customer reads it once released.
   */
  const releasedAfterThe201 = async (fields: Record<string, unknown>, fault: 'normal' | 'reject') => {
    const { lines } = customer({ h: slow, tenant: await createTenant(slow.db) });
    slow.simulator.state.provisionFault = 'hold';
    const created = await lines.post(fields);
    expect(created.status).toBe(201);
    expect(created.body.line).toMatchObject({ status: 'provisioning', provisioning_error: null });
    slow.simulator.state.provisionFault = fault;
    slow.simulator.state.releaseHeld();
    return lines.untilReleased(created.body.line.id);
  };

  it('releases the line with provisioning_error naming the criterion', async () => {
    const released = await releasedAfterThe201({ area_code: '564' }, 'normal');
    expect(released).toMatchObject({
      phone_number: null,
      provisioning_error: {
        code: 'number_unavailable',
        field: 'area_code',
        message: 'No local numbers are available in area code 564 (US); try another area code or none',
      },
    });
  });

  it('releases the line with provisioning_error naming the provider and its code when the carrier refuses otherwise (issue 26)', async () => {
    const released = await releasedAfterThe201({}, 'reject');
    expect(released).toMatchObject({
      phone_number: null,
      provisioning_error: {
        code: 'carrier_error',
        field: null,
        message: 'The carrier refused to provide a number for this line (the simulator: error 409)',
        provider: 'simulator',
        provider_code: '409',
      },
    });
  });
});
