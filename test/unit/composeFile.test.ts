import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig, projectRoot } from '../../src/platform/config';
import { configurationReport, ROLE_REQUIREMENTS, SECRET_SETTINGS, type ProcessRole } from '../../src/platform/startupCheck';

/**
 * Docker does not run here, so the compose deployment is tested by reading it (security review
 * M9, M10; conformance D1): every app service, with the image's ENV and its compose environment
 * interpolated from a `.env` of strong random secrets, must pass the same startup check its
 * process runs, and the structure must keep the simulator internal.
 */
describe('docker-compose.yml', () => {
  type Service = {
    command?: string[];
    environment?: Record<string, string | number>;
    ports?: unknown[];
    profiles?: string[];
    depends_on?: Record<string, { condition?: string; required?: boolean }>;
  };
  const composeText = fs.readFileSync(path.join(projectRoot, 'docker-compose.yml'), 'utf8');
  const compose = YAML.parse(composeText, { merge: true }) as { services: Record<string, Service> };
  const dockerfile = fs.readFileSync(path.join(projectRoot, 'Dockerfile'), 'utf8');
  const readme = fs.readFileSync(path.join(projectRoot, 'README.md'), 'utf8');

  /** What a `.env` next to the compose file holds: a fresh strong value for every required variable. */
  const dotEnv = new Map<string, string>();
  const valueOf = (name: string) => {
    if (!dotEnv.has(name)) dotEnv.set(name, crypto.randomBytes(32).toString('hex'));
    return dotEnv.get(name)!;
  };
  /** Compose's interpolation: `${X:?msg}` must come from .env, `${X:-default}` falls back, `$$` is a literal `$`. */
  const interpolate = (value: string) =>
    value.replace(
      /\$\$|\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g,
      (match, name: string | undefined, kind: string | undefined, rest: string | undefined) => {
        if (match === '$$') return '$';
        if (kind === '-') return rest ?? '';
        return valueOf(name!);
      },
    );
  /** `ENV A=1 \ B=2` lines of the Dockerfile: the base environment of every app container. */
  const imageEnv = (): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const match of dockerfile.matchAll(/^ENV\s+((?:[^\n]*\\\n)*[^\n]*)/gm)) {
      for (const pair of match[1].replace(/\\\n/g, ' ').matchAll(/([A-Z0-9_]+)=(\S+)/g)) env[pair[1]] = pair[2];
    }
    return env;
  };
  const roleOf = (service: Service): ProcessRole | null => {
    const entry = service.command?.find((part) => part.endsWith('.ts'));
    return (
      ({ 'src/main/api.ts': 'api', 'src/main/worker.ts': 'worker', 'simulator/main.ts': 'simulator', 'src/main/cli.ts': 'cli' } as const)[
        entry ?? ''
      ] ?? null
    );
  };
  const environmentOf = (service: Service): NodeJS.ProcessEnv => ({
    ...imageEnv(),
    // Outside a checkout: no `.data` to read.
    SWITCHBOARD_DATA_DIR: '/nonexistent',
    ...Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value))])),
  });
  const appServices = Object.entries(compose.services).filter(([, service]) => roleOf(service) !== null);

  it('runs every app process, and each passes its startup check', () => {
    expect(appServices.map(([name, service]) => [name, roleOf(service)])).toEqual([
      ['migrate', 'cli'],
      ['api', 'api'],
      ['worker', 'worker'],
      ['simulator', 'simulator'],
    ]);
    for (const [name, service] of appServices) {
      const report = configurationReport(roleOf(service)!, loadConfig(environmentOf(service)));
      expect({ name, ...report }).toEqual({ name, problems: [], warnings: [] });
    }
  });

  it('takes every secret from .env, required (no default), with the same value on both sides', () => {
    const sides = new Map<string, string[]>();
    for (const [name, service] of appServices) {
      const role = roleOf(service)!;
      for (const secret of [...ROLE_REQUIREMENTS[role].secrets, ...ROLE_REQUIREMENTS[role].optionalSecrets]) {
        const raw = String(service.environment?.[secret] ?? '');
        const optional = ROLE_REQUIREMENTS[role].optionalSecrets.includes(secret);
        expect({ name, secret, raw }).toEqual({
          name,
          secret,
          raw: expect.stringMatching(optional ? new RegExp(`^\\$\\{${secret}:-\\}$`) : new RegExp(`^\\$\\{${secret}:\\?[^}]+\\}$`)),
        });
        sides.set(secret, [...(sides.get(secret) ?? []), name]);
      }
    }
    expect(Object.fromEntries(sides)).toMatchObject({
      CARRIER_WEBHOOK_SECRET: ['api', 'simulator'],
      CARRIER_API_KEY: ['worker', 'simulator'],
      PAYMENTS_API_KEY: ['worker', 'simulator'],
      SECRETS_KEY: ['api', 'worker'],
      SIMULATOR_CONTROL_TOKEN: ['simulator'],
    });
    // Both sides read the one .env variable, so they hold the same value.
    for (const [secret, services] of sides) {
      const values = new Set(services.map((name) => environmentOf(compose.services[name])[secret]));
      expect({ secret, distinct: values.size }).toEqual({ secret, distinct: 1 });
    }
    expect(composeText).not.toContain('CARRIER_EVENTS_SECRET');
    expect(composeText).not.toMatch(/SWITCHBOARD_PROFILE:\s*dev/);
    for (const name of Object.keys(SECRET_SETTINGS)) expect(dockerfile).not.toMatch(new RegExp(`${name}=`));
  });

  it('points the carrier at the API service, and the API nowhere else', () => {
    const api = environmentOf(compose.services.api);
    const worker = environmentOf(compose.services.worker);
    const simulator = environmentOf(compose.services.simulator);
    const apiUrl = `http://api:${api.PORT}`;
    expect(worker.PUBLIC_BASE_URL).toBe(apiUrl);
    expect(simulator.SIMULATOR_CALLBACK_BASE_URL).toBe(apiUrl);
    expect(new URL(worker.SIMULATOR_URL!).host).toBe(`simulator:${new URL(simulator.SIMULATOR_URL!).port}`);
  });

  it('keeps the simulator internal and out of the default profile', () => {
    const simulator = compose.services.simulator;
    expect(simulator.ports).toBeUndefined();
    expect(simulator.profiles).toEqual(['simulator']);
    // The worker must still start without that profile.
    expect(compose.services.worker.depends_on?.simulator).toMatchObject({ required: false });
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) {
        const published = String(port);
        // Only the API is public; anything else on the host is bound to loopback.
        if (name !== 'api') expect({ name, published }).toEqual({ name, published: expect.stringMatching(/^127\.0\.0\.1:/) });
      }
    }
  });

  it('documents every setting it requires in the README configuration table', () => {
    const required = [...new Set([...composeText.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]))];
    expect(required.length).toBeGreaterThan(5);
    for (const name of [...required, 'METRICS_TOKEN', 'PUBLIC_BASE_URL', 'SIMULATOR_CALLBACK_BASE_URL', 'SWITCHBOARD_PROFILE']) {
      expect({ name, documented: new RegExp(`^\\|[^\\n]*\`${name}\``, 'm').test(readme) }).toEqual({ name, documented: true });
    }
  });
});
