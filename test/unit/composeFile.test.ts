import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import draft07MetaSchema from 'ajv/dist/refs/json-schema-draft-07.json';
import { loadConfig, projectRoot } from '../../src/platform/config';
import {
  configurationReport,
  deploymentSettings,
  ROLE_REQUIREMENTS,
  SECRET_SETTINGS,
  type ProcessRole,
} from '../../src/platform/startupCheck';
import { dockerfileEnv, readComposeFile, variableReferences, type ComposeFile, type ComposeService } from '../support/composeFile';
import { PROVIDER_SETTINGS } from '../../src/adapters/settings';
import { BUILD_DIR, BUILD_ENTRY_POINTS, NODE_FLAGS } from '../../src/platform/buildLayout';

/**
 * Docker does not run here, so the compose deployment is tested by reading it (issue 15; security
 * review C1, M9, M10; conformance D1): the file against the Compose Specification's JSON schema,
 * every app service's environment against the settings its process role requires
 * (`deploymentSettings`, the list the startup check enforces), no secret with a default, the
 * start order, and nothing but the API and the (loopback) UI published.
 */
describe('docker-compose.yml', () => {
  const compose = readComposeFile();
  const readme = fs.readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
  const dockerfile = fs.readFileSync(path.join(projectRoot, 'Dockerfile'), 'utf8');

  /** What a `.env` next to the compose file holds: a fresh strong value for every required variable. */
  const dotEnv = new Map<string, string>();
  /** The operator's https URL (their TLS proxy's), the one .env value that is not a secret. */
  const PUBLIC_URL = 'https://switchboard.example.com';
  const valueOf = (name: string) => {
    if (name === 'PUBLIC_BASE_URL') return PUBLIC_URL;
    if (!dotEnv.has(name)) dotEnv.set(name, crypto.randomBytes(32).toString('hex'));
    return dotEnv.get(name)!;
  };
  const resolved: ComposeFile = compose.interpolated(valueOf);
  const services = resolved.services;

  /** The role of a service that runs the build's entry point (`node dist/src/main/api.js`; test/unit/dockerfile.test.ts). */
  const roleOf = (service: ComposeService): ProcessRole | null => {
    const entry = service.command?.find((part) => part.endsWith('.js'));
    const roles: Record<string, ProcessRole> = {
      [`${BUILD_DIR}/${BUILD_ENTRY_POINTS.api}`]: 'api',
      [`${BUILD_DIR}/${BUILD_ENTRY_POINTS.worker}`]: 'worker',
      [`${BUILD_DIR}/${BUILD_ENTRY_POINTS.simulator}`]: 'simulator',
      [`${BUILD_DIR}/${BUILD_ENTRY_POINTS.cli}`]: 'cli',
    };
    return roles[entry ?? ''] ?? null;
  };
  /** What the process sees: the image's ENV, then the service's environment. */
  const environmentOf = (name: string): NodeJS.ProcessEnv => ({
    ...dockerfileEnv(),
    // Outside a checkout: no `.data` to read.
    SWITCHBOARD_DATA_DIR: '/nonexistent',
    ...Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([key, value]) => [key, String(value)])),
  });
  const appServices = Object.entries(services)
    .filter(([, service]) => roleOf(service) !== null)
    .map(([name, service]) => ({ name, role: roleOf(service)! }));

  describe('the Compose Specification schema', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(projectRoot, 'test/fixtures/compose-spec.json'), 'utf8')) as {
      $schema: string;
    };
    // The schema declares draft-07 (Ajv's default class) under its https address; strict mode is
    // about authoring a schema, and this one is vendored as published.
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addMetaSchema({ ...draft07MetaSchema, $id: schema.$schema });
    const validate = ajv.compile(schema);

    it('is the draft-07 schema it was vendored as', () => {
      expect(schema.$schema).toMatch(/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/);
      expect(ajv.validateSchema(schema)).toBe(true);
    });

    it('accepts the file, as interpolated from a complete .env', () => {
      expect(validate(resolved) ? [] : validate.errors).toEqual([]);
    });

    it('rejects what Compose would refuse (the check can fail)', () => {
      const broken = structuredClone(resolved) as unknown as { services: Record<string, Record<string, unknown>> };
      broken.services.api.depends_on = { migrate: { condition: 'service_finished' } };
      broken.services.worker.healthcheck = { test: ['CMD', 'true'], intervall: '5s' };
      broken.services.postgres.restart = ['always'];
      expect(validate(broken)).toBe(false);
      const paths = (validate.errors ?? []).map((error) => error.instancePath);
      for (const broke of ['/services/api/depends_on', '/services/worker/healthcheck', '/services/postgres/restart'])
        expect({ broke, reported: paths.some((p) => p.startsWith(broke)) }).toEqual({ broke, reported: true });
    });
  });

  describe('settings', () => {
    it('runs every app process, and each passes its startup check', () => {
      expect(appServices).toEqual([
        { name: 'migrate', role: 'cli' },
        { name: 'api', role: 'api' },
        { name: 'worker', role: 'worker' },
        { name: 'simulator', role: 'simulator' },
      ]);
      for (const { name, role } of appServices) {
        const report = configurationReport(role, loadConfig(environmentOf(name)), PROVIDER_SETTINGS);
        expect({ name, ...report }).toEqual({ name, problems: [], warnings: [] });
      }
    });

    it("runs each app process with its role's node flags, before its entry point", () => {
      for (const { name, role } of appServices) {
        const command = services[name].command!;
        const entry = command.findIndex((part) => part.endsWith('.js'));
        expect({ name, flags: command.slice(1, entry) }).toEqual({ name, flags: [...NODE_FLAGS[role]] });
      }
      expect(services.api.command).toContain('--max-semi-space-size=32');
    });

    it("gives each app process every setting its role's requirements list", () => {
      for (const { name, role } of appServices) {
        const env = environmentOf(name);
        const missing = deploymentSettings(role).filter((setting) => !env[setting]);
        expect({ name, role, missing }).toEqual({ name, role, missing: [] });
      }
    });

    it('takes every secret from .env, required (no default), with the same value on both sides', () => {
      const sides = new Map<string, string[]>();
      for (const { name, role } of appServices) {
        const raw = compose.raw.services[name].environment ?? {};
        // A deployment sets the optional secrets too (METRICS_TOKEN: it is scraped).
        for (const secret of [...ROLE_REQUIREMENTS[role].secrets, ...ROLE_REQUIREMENTS[role].optionalSecrets]) {
          expect({ name, secret, raw: raw[secret] }).toEqual({
            name,
            secret,
            raw: expect.stringMatching(new RegExp(`^\\$\\{${secret}:\\?[^}]+\\}$`)),
          });
          sides.set(secret, [...(sides.get(secret) ?? []), name]);
        }
      }
      expect(Object.fromEntries(sides)).toEqual({
        CARRIER_WEBHOOK_SECRET: ['api', 'simulator'],
        CARRIER_API_KEY: ['worker', 'simulator'],
        PAYMENTS_API_KEY: ['worker', 'simulator'],
        SECRETS_KEY: ['api', 'worker'],
        // Every process that serves metrics (the list says which) reads the one token.
        METRICS_TOKEN: appServices
          .filter(({ role }) => ROLE_REQUIREMENTS[role].optionalSecrets.includes('METRICS_TOKEN'))
          .map(({ name }) => name),
        SIMULATOR_CONTROL_TOKEN: ['simulator'],
        // The UI's codec endpoint (temporal-ui) embeds the token compose also hands the API.
        TEMPORAL_CODEC_TOKEN: ['api'],
        // Every Temporal client and worker encrypts with the one key ring (the CLI in `migrate` runs the history commands).
        TEMPORAL_PAYLOAD_KEY: ['migrate', 'api', 'worker'],
      });
      // Both sides read the one .env variable, so they hold the same value.
      for (const [secret, names] of sides) {
        const values = new Set(names.map((name) => environmentOf(name)[secret]));
        expect({ secret, distinct: values.size }).toEqual({ secret, distinct: 1 });
      }
      expect(compose.text).not.toContain('CARRIER_EVENTS_SECRET');
      expect(compose.text).not.toMatch(/SWITCHBOARD_PROFILE:\s*dev/);
      for (const name of Object.keys(SECRET_SETTINGS)) expect(dockerfile).not.toMatch(new RegExp(`${name}=`));
    });

    it('builds every stage from a base image pinned by digest (L22)', () => {
      const bases = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
      expect(bases.length).toBeGreaterThan(0);
      for (const base of bases) expect(base).toMatch(/^[\w./-]+(:[\w.-]+)?@sha256:[0-9a-f]{64}$/);
    });

    it('connects the app as its own role, never the Postgres superuser; a job makes that role own only the app schema (L22)', () => {
      const superuser = environmentOf('postgres').POSTGRES_USER;
      for (const { name } of appServices.filter(({ role }) => role !== 'simulator')) {
        const url = new URL(environmentOf(name).DATABASE_URL!);
        expect({ name, user: url.username }).toEqual({ name, user: 'switchboard_app' });
        expect(url.username).not.toBe(superuser);
        expect(url.password).toBe(valueOf('APP_DB_PASSWORD'));
      }
      const job = services['app-db-role'];
      const script = job.command!.join('\n');
      expect(job.environment).toMatchObject({ PGUSER: superuser, PGPASSWORD: valueOf('POSTGRES_PASSWORD') });
      expect(script).toContain('NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS');
      expect(script).toContain('CREATE SCHEMA IF NOT EXISTS switchboard AUTHORIZATION switchboard_app');
      expect(script).toMatch(/SET search_path = switchboard/);
      expect(script).toContain('REVOKE ALL ON SCHEMA public FROM PUBLIC');
      expect(valueOf('APP_DB_PASSWORD')).not.toBe(valueOf('POSTGRES_PASSWORD'));
    });

    it('has no secret with a default or a literal value, in any service', () => {
      const references = variableReferences(compose.text);
      // Only the two forms Compose resolves predictably: required, or a fallback for a non-secret.
      expect(references.filter((r) => r.kind === 'other').map((r) => r.raw)).toEqual([]);
      const secretNames = new Set([...Object.keys(SECRET_SETTINGS), 'POSTGRES_PASSWORD']);
      const defaulted = references.filter(
        (r) => r.kind === 'fallback' && (secretNames.has(r.name) || /SECRET|TOKEN|KEY|PASSWORD|PWD/.test(r.name)),
      );
      expect(defaulted.map((r) => r.raw)).toEqual([]);
      // Every environment entry that is a secret, app or not (POSTGRES_PWD, SQL_PASSWORD, ...), is one required variable.
      for (const [name, service] of Object.entries(compose.raw.services)) {
        for (const [key, value] of Object.entries(service.environment ?? {})) {
          if (!secretNames.has(key) && !/(SECRET|TOKEN|_KEY|PASSWORD|PWD)$/.test(key)) continue;
          const only = variableReferences(String(value));
          expect({ name, key, value, required: only.length === 1 && only[0].raw === String(value) && only[0].kind === 'required' }).toEqual(
            {
              name,
              key,
              value,
              required: true,
            },
          );
        }
      }
    });

    it("gives the API the operator's https URL from .env (required), never the address it binds (L16)", () => {
      expect(compose.raw.services.api.environment?.PUBLIC_BASE_URL).toMatch(/^\$\{PUBLIC_BASE_URL:\?[^}]+\}$/);
      expect(environmentOf('api').PUBLIC_BASE_URL).toBe(PUBLIC_URL);
      // Without it, or with a plain-http one, the API refuses to start.
      for (const value of ['http://0.0.0.0:8080', 'http://switchboard.example.com']) {
        const report = configurationReport('api', loadConfig({ ...environmentOf('api'), PUBLIC_BASE_URL: value }), PROVIDER_SETTINGS);
        expect(report.problems.map((p) => p.setting)).toContain('PUBLIC_BASE_URL');
      }
      const unset = { ...environmentOf('api') };
      delete unset.PUBLIC_BASE_URL;
      expect(configurationReport('api', loadConfig(unset), PROVIDER_SETTINGS).problems.map((p) => p.setting)).toContain('PUBLIC_BASE_URL');
    });

    it('points the carrier at the API service, and the API nowhere else', () => {
      const api = environmentOf('api');
      const worker = environmentOf('worker');
      const simulator = environmentOf('simulator');
      const apiUrl = `http://api:${api.PORT}`;
      expect(worker.PUBLIC_BASE_URL).toBe(apiUrl);
      expect(simulator.SIMULATOR_CALLBACK_BASE_URL).toBe(apiUrl);
      expect(new URL(worker.SIMULATOR_URL!).host).toBe(`simulator:${new URL(simulator.SIMULATOR_URL!).port}`);
    });

    it('documents every setting it requires in the README configuration table', () => {
      const required = [
        ...new Set(
          variableReferences(compose.text)
            .filter((r) => r.kind === 'required')
            .map((r) => r.name),
        ),
      ];
      expect(required.length).toBeGreaterThan(5);
      for (const name of [...required, 'PUBLIC_BASE_URL', 'SIMULATOR_CALLBACK_BASE_URL', 'SWITCHBOARD_PROFILE']) {
        expect({ name, documented: new RegExp(`^\\|[^\\n]*\`${name}\``, 'm').test(readme) }).toEqual({ name, documented: true });
      }
    });
  });

  describe('Temporal', () => {
    const imageTag = (name: string) => services[name].image!.split(':');

    it('runs the official server, admin-tools and UI images, pinned, and the server and its schema of one release', () => {
      expect(compose.text).not.toContain('auto-setup');
      const [serverImage, serverTag] = imageTag('temporal');
      expect(serverImage).toBe('temporalio/server');
      expect(serverTag).toMatch(/^\d+\.\d+\.\d+$/);
      for (const job of ['temporal-schema', 'temporal-namespace']) expect(services[job].image).toBe(`temporalio/admin-tools:${serverTag}`);
      expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
      expect(services.postgres.image).toMatch(/^postgres:\d+$/);
    });

    it("wires the UI to the API's codec endpoint: payloads decrypted in the browser of the UI's origin only", () => {
      const ui = compose.raw.services['temporal-ui'].environment ?? {};
      const api = compose.raw.services.api.environment ?? {};
      // The API's published port, the codec's path, the token as its last segment (the UI sends no header of its own).
      expect(ui.TEMPORAL_CODEC_ENDPOINT).toMatch(/^http:\/\/localhost:8080\/temporal-codec\/\$\{TEMPORAL_CODEC_TOKEN:\?[^}]+\}$/);
      expect(api.TEMPORAL_CODEC_CORS_ORIGINS).toBe(ui.TEMPORAL_CORS_ORIGINS);
    });

    it('sets up and upgrades the schema of the databases the server uses, on Postgres', () => {
      const server = services.temporal.environment!;
      expect(server).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
      const script = services['temporal-schema'].command!.join('\n');
      expect(services['temporal-schema'].environment).toMatchObject({ SQL_PLUGIN: 'postgres12', SQL_HOST: 'postgres' });
      for (const [database, schemaDir] of [
        [server.DBNAME, 'temporal'],
        [server.VISIBILITY_DBNAME, 'visibility'],
      ]) {
        expect(script).toContain(`--db ${database} create-database`);
        expect(script).toContain(`--db ${database} setup-schema -v 0.0`);
        expect(script).toContain(`--db ${database} update-schema -d /etc/temporal/schema/postgresql/v12/${schemaDir}/versioned`);
      }
      // The server image ships no dynamic config file; the server exits without one.
      const dynamicConfig = services.temporal.configs?.find((c) => c.target === server.DYNAMIC_CONFIG_FILE_PATH);
      expect(resolved.configs?.[dynamicConfig!.source]?.content).toContain('frontend.enableUpdateWorkflowExecution');
    });

    it('registers the namespace the app uses', () => {
      const namespace = environmentOf('api').TEMPORAL_NAMESPACE;
      expect(environmentOf('worker').TEMPORAL_NAMESPACE).toBe(namespace);
      expect(services['temporal-namespace'].command!.join('\n')).toContain(
        `namespace create --namespace ${namespace} --address temporal:7233`,
      );
      expect(environmentOf('api').TEMPORAL_ADDRESS).toBe('temporal:7233');
    });
  });

  describe('start order and exposure', () => {
    it('starts each service after what it needs: healthy servers, finished one-shot jobs', () => {
      const order = Object.fromEntries(
        Object.entries(services).map(([name, service]) => [
          name,
          Object.fromEntries(Object.entries(service.depends_on ?? {}).map(([dependency, { condition }]) => [dependency, condition])),
        ]),
      );
      expect(order).toMatchObject({
        'temporal-schema': { postgres: 'service_healthy' },
        temporal: { 'temporal-schema': 'service_completed_successfully' },
        'temporal-namespace': { temporal: 'service_healthy' },
        'temporal-ui': { temporal: 'service_healthy' },
        'app-db-role': { postgres: 'service_healthy' },
        migrate: { postgres: 'service_healthy', 'app-db-role': 'service_completed_successfully' },
        api: {
          migrate: 'service_completed_successfully',
          temporal: 'service_healthy',
          'temporal-namespace': 'service_completed_successfully',
        },
        worker: {
          migrate: 'service_completed_successfully',
          temporal: 'service_healthy',
          'temporal-namespace': 'service_completed_successfully',
          simulator: 'service_healthy',
        },
      });
      for (const [name, dependencies] of Object.entries(order)) {
        for (const [dependency, condition] of Object.entries(dependencies)) {
          // Waiting on health needs a healthcheck; waiting on completion needs a job that is not restarted.
          if (condition === 'service_healthy')
            expect({ name, dependency, healthcheck: !!services[dependency].healthcheck?.test }).toEqual({
              name,
              dependency,
              healthcheck: true,
            });
          else
            expect({ name, dependency, condition, restart: services[dependency].restart }).toEqual({
              name,
              dependency,
              condition: 'service_completed_successfully',
              restart: 'no',
            });
        }
      }
    });

    it('publishes only the API and, on loopback, the UI; the simulator and the Temporal frontend stay internal', () => {
      const published = Object.entries(services)
        .filter(([, service]) => service.ports !== undefined)
        .map(([name]) => name);
      expect(published.sort()).toEqual(['api', 'temporal-ui']);
      for (const port of services['temporal-ui'].ports!) expect(String(port)).toMatch(/^127\.0\.0\.1:/);
      // The API too, by default: plain http for the TLS proxy on this host (L16).
      for (const port of services.api.ports!) expect(String(port)).toMatch(/^127\.0\.0\.1:8080:8080$/);
    });

    it('keeps the simulator out of the default profile, and the worker starts without it', () => {
      expect(services.simulator.profiles).toEqual(['simulator']);
      expect(services.worker.depends_on?.simulator).toMatchObject({ required: false });
    });
  });
});
