import { haproxyConfig } from '../../dev/infra/clusterStack';
import { temporalServerPorts } from '../../dev/infra/temporalServer';

describe('the cluster profile settings', () => {
  it('gives the Temporal server ten consecutive ports and refuses ones its schema cannot store', () => {
    expect(temporalServerPorts(7233)).toEqual({
      frontend: 7233,
      history: 7234,
      matching: 7235,
      worker: 7236,
      membership: { frontend: 7237, history: 7238, matching: 7239, worker: 7240 },
      http: 7241,
      metrics: 7242,
    });
    expect(() => temporalServerPorts(32_761)).toThrow(/smallint/);
    expect(temporalServerPorts(32_760).membership.worker).toBe(32_767);
  });

  it('balances over both APIs, checking each one at /readyz', () => {
    const config = haproxyConfig(8080, [8081, 8082]);
    expect(config).toContain('bind 127.0.0.1:8080');
    expect(config).toContain('option httpchk GET /readyz');
    expect(config).toMatch(/server api-1 127\.0\.0\.1:8081 check/);
    expect(config).toMatch(/server api-2 127\.0\.0\.1:8082 check/);
    expect(config).toContain('option redispatch');
  });
});
