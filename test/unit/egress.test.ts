import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { classifyAddress, parseNetworks } from '../../src/platform/net/addresses';
import { EgressPolicy, LOOPBACK_NETWORKS, ownServiceEndpoints } from '../../src/platform/net/egress';
import { loadConfig } from '../../src/platform/config';

/** The egress policy (H2) on its own: which addresses are refused, and the connect-time check. */
describe('egress policy', () => {
  describe('address classification', () => {
    it.each([
      ['127.0.0.1', 'a loopback address'],
      ['127.9.9.9', 'a loopback address'],
      ['10.1.2.3', 'a private address'],
      ['172.16.0.1', 'a private address'],
      ['192.168.1.1', 'a private address'],
      ['169.254.169.254', 'a link-local address'],
      ['100.64.0.1', 'a carrier-grade NAT address'],
      ['0.0.0.0', 'an unspecified address'],
      ['224.0.0.251', 'a multicast address'],
      ['255.255.255.255', 'a broadcast address'],
      ['240.0.0.1', 'a reserved address'],
      ['192.0.2.10', 'a reserved address'],
      ['::1', 'a loopback address'],
      ['::', 'an unspecified address'],
      ['fd00::1', 'a unique local address'],
      ['fe80::1', 'a link-local address'],
      ['ff02::1', 'a multicast address'],
      ['2001:db8::1', 'a reserved address'],
      ['::7f00:1', 'a reserved address'],
      ['2001::1', 'a Teredo tunnel address'],
      // IPv6 forms carrying an IPv4 address are judged by it.
      ['::ffff:127.0.0.1', 'a loopback address'],
      ['::ffff:a9fe:a9fe', 'a link-local address'],
      ['64:ff9b::a00:1', 'a private address'],
      ['2002:7f00:1::1', 'a loopback address'],
    ])('%s is %s', (address, description) => {
      expect(classifyAddress(address).nonPublic).toBe(description);
    });

    it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s is public', (address) => {
      expect(classifyAddress(address).nonPublic).toBeNull();
    });

    it('parses the operator allow-list and names a bad entry', () => {
      expect(parseNetworks('127.0.0.1/32, ::1 ,10.0.0.0/8')).toHaveLength(3);
      expect(() => parseNetworks('127.0.0.1/32,localhost')).toThrow('"localhost" is not a network in CIDR notation');
      expect(() => parseNetworks('10.0.0.0/33')).toThrow('"10.0.0.0/33"');
    });
  });

  describe('policy', () => {
    const fixed =
      (address: string): ((hostname: string) => Promise<LookupAddress[]>) =>
      async () => [{ address, family: address.includes(':') ? 6 : 4 }];

    it('refuses non-public addresses unless the allow-list admits them; own services stay refused', async () => {
      const off = new EgressPolicy();
      expect(await off.refusalOf('127.0.0.1', 8080)).toBe('a loopback address');
      expect(await off.refusalOf('8.8.8.8', 443)).toBeNull();
      const dev = new EgressPolicy({ allowedNetworks: LOOPBACK_NETWORKS, ownServices: () => [{ host: '127.0.0.1', port: 8090 }] });
      expect(await dev.refusalOf('127.0.0.1', 3000)).toBeNull();
      expect(await dev.refusalOf('::ffff:127.0.0.1', 3000)).toBeNull();
      expect(await dev.refusalOf('10.0.0.1', 3000)).toBe('a private address');
      // A service on this host answers on every local address: its port is refused on all of them.
      for (const address of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1', '0.0.0.0']) {
        expect(await dev.refusalOf(address, 8090)).toBe("an address of Switchboard's own services");
      }
      for (const policy of [off, dev]) policy.close();
    });

    it('own services are those the configuration names, public ones included', async () => {
      const config = {
        ...loadConfig(),
        host: '0.0.0.0',
        port: 8080,
        publicBaseUrl: 'https://api.example.test',
        simulatorUrl: 'http://127.0.0.1:8090',
        modelBaseUrl: 'https://models.example.test/v1',
        temporalAddress: 'temporal:7233',
        databaseUrl: 'postgres://u:p@db.example.test/switchboard',
      };
      expect(ownServiceEndpoints(config)).toEqual([
        { host: '0.0.0.0', port: 8080 },
        { host: 'api.example.test', port: 443 },
        { host: '127.0.0.1', port: 8090 },
        { host: 'models.example.test', port: 443 },
        { host: 'temporal', port: 7233 },
        { host: 'db.example.test', port: 5432 },
      ]);
      const policy = new EgressPolicy({ ownServices: () => [{ host: 'api.example.test', port: 443 }], resolve: fixed('203.0.114.7') });
      expect(await policy.refusalOf('203.0.114.7', 443)).toBe("an address of Switchboard's own services");
      expect(await policy.refusalOf('203.0.114.7', 8443)).toBeNull();
      policy.close();
    });

    it('the save-time check resolves names, accepts names that do not resolve, and wants https for live', async () => {
      const policy = new EgressPolicy({
        resolve: async (hostname) => {
          if (hostname === 'inside.example.test')
            return [
              { address: '8.8.8.8', family: 4 },
              { address: '10.0.0.7', family: 4 },
            ];
          if (hostname === 'public.example.test') return [{ address: '8.8.8.8', family: 4 }];
          throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        },
      });
      expect(await policy.refusalOfUrl('https://inside.example.test/hooks', 'test')).toBe(
        'inside.example.test resolves to 10.0.0.7, which is a private address; only public addresses can be reached',
      );
      expect(await policy.refusalOfUrl('https://public.example.test/hooks', 'live')).toBeNull();
      expect(await policy.refusalOfUrl('https://later.example.test/hooks', 'live')).toBeNull();
      expect(await policy.refusalOfUrl('http://public.example.test/hooks', 'test')).toBeNull();
      expect(await policy.refusalOfUrl('http://public.example.test/hooks', 'live')).toBe('Must use https in the live environment');
      expect(await policy.refusalOfUrl('ws://public.example.test/audio', 'live')).toBe('Must use wss in the live environment');
      policy.close();
    });

    describe('at connect time', () => {
      let server: http.Server;
      let port: number;
      let requests = 0;
      beforeAll(async () => {
        server = http.createServer((req, res) => {
          requests += 1;
          req.resume();
          res.end('reached');
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        port = (server.address() as AddressInfo).port;
      });
      afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
      beforeEach(() => {
        requests = 0;
      });

      const post = (policy: EgressPolicy, url: string) =>
        policy.request(url, { method: 'POST', headers: {}, body: '{}', signal: new AbortController().signal });
      const bodyOf = async (response: http.IncomingMessage) => {
        let text = '';
        for await (const chunk of response) text += chunk;
        return text;
      };
      const failureOf = async (promise: Promise<unknown>) => {
        try {
          await promise;
        } catch (err) {
          return err as Error;
        }
        throw new Error('the request was not refused');
      };

      it('a name that passed when saved but resolves to loopback when connecting (DNS rebinding) is refused before any request', async () => {
        let lookups = 0;
        const rebinding = async (): Promise<LookupAddress[]> => [{ address: (lookups += 1) === 1 ? '8.8.8.8' : '127.0.0.1', family: 4 }];
        const policy = new EgressPolicy({ resolve: rebinding });
        const url = `http://rebind.example.test:${port}/hooks`;
        expect(await policy.refusalOfUrl(url, 'test')).toBeNull();
        const err = await failureOf(post(policy, url));
        expect(err.name).toBe('EgressRefusedError');
        expect(err.message).toBe('rebind.example.test resolves to 127.0.0.1, a loopback address');
        expect(lookups).toBe(2);
        expect(requests).toBe(0);
        policy.close();
      });

      it('IP literals (which skip name resolution) are vetted too; an allow-listed one is reached', async () => {
        const off = new EgressPolicy();
        for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '0x7f000001', '2130706433']) {
          const err = await failureOf(post(off, `http://${host}:${port}/`));
          expect(err.name).toBe('EgressRefusedError');
        }
        await expect(off.webSocketOptions(`ws://127.0.0.1:${port}/audio`)).rejects.toMatchObject({ name: 'EgressRefusedError' });
        expect(requests).toBe(0);
        const dev = new EgressPolicy({ allowedNetworks: LOOPBACK_NETWORKS });
        expect(await bodyOf(await post(dev, `http://127.0.0.1:${port}/`))).toBe('reached');
        expect(await bodyOf(await post(dev, `http://localhost:${port}/`))).toBe('reached');
        expect(requests).toBe(2);
        // An own service on that port stays refused on connect, whatever the allow-list says.
        const own = new EgressPolicy({ allowedNetworks: LOOPBACK_NETWORKS, ownServices: () => [{ host: '127.0.0.1', port }] });
        for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`]) {
          expect((await failureOf(post(own, url))).message).toMatch(/Switchboard's own services$/);
        }
        expect(requests).toBe(2);
        for (const policy of [off, dev, own]) policy.close();
      });
    });
  });
});
