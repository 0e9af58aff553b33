import fs from 'node:fs';
import net from 'node:net';
import { listenerPort } from '../support/listenerPort';

/** The media listeners' port in tests (test/support/listenerPort.ts): free, and where nothing takes it by chance. */
describe('a port for a listener that binds later', () => {
  it('is free, and below the ephemeral range that outgoing connections and listen(0) draw from', async () => {
    const [lowestEphemeral] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    const ports = await Promise.all(Array.from({ length: 5 }, () => listenerPort()));
    for (const port of ports) expect(port).toBeLessThan(lowestEphemeral);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], '0.0.0.0', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
