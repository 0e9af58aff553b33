import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { ensureHelmBuild, HELM_VERSION } from '../../dev/infra/helm';
import { PROVIDER_SETTINGS } from '../../src/adapters/settings';
import { loadConfig, projectRoot } from '../../src/platform/config';
import { CLOSE_MARGIN_MS } from '../../src/platform/lifecycle/drain';
import {
  configurationReport,
  deploymentSettings,
  ROLE_REQUIREMENTS,
  SECRET_SETTINGS,
  type ProcessRole,
} from '../../src/platform/startupCheck';
import { KUBERNETES_SCHEMA_VERSION, KubernetesSchemas, type Manifest } from '../support/kubernetesSchemas';
import { NODE_FLAGS } from '../../src/platform/buildLayout';

/**
 * The Helm chart (deploy/helm/switchboard), offline: `helm lint` and `helm template` of the default values and of the
 * production example, every rendered object against the Kubernetes API's schemas (vendored; test/fixtures/kubernetes),
 * each process's environment against the settings its role requires (`deploymentSettings`, as the compose file is held
 * to them) and its startup check, grace periods against the drain deadlines, and secrets only ever referenced. Helm is
 * built from its Go module into the tool cache on the first run (dev/infra/helm.ts).
 */
const CHART = path.join(projectRoot, 'deploy/helm/switchboard');
const PRODUCTION = path.join(CHART, 'values-production.yaml');
const RELEASE = 'switchboard';
const NAMESPACE = 'switchboard';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}

interface Container {
  name: string;
  command: string[];
  env?: EnvVar[];
  securityContext?: Record<string, unknown>;
  resources?: { requests?: Record<string, string> };
  readinessProbe?: Record<string, unknown>;
  livenessProbe?: Record<string, unknown>;
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}

interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: Record<string, unknown>;
  volumes?: Array<Record<string, unknown> & { name: string }>;
}

let helm: string;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-helm-'));

function runHelm(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      helm,
      args,
      { maxBuffer: 32 * 1024 * 1024, env: { ...process.env, HELM_CACHE_HOME: tmp, HELM_CONFIG_HOME: tmp, HELM_DATA_HOME: tmp } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Values files (paths, or objects written to a file) to `-f` arguments. */
function valuesArgs(values: Array<string | Record<string, unknown>>): string[] {
  return values.flatMap((value) => {
    if (typeof value === 'string') return ['-f', value];
    const file = path.join(tmp, `values-${crypto.randomBytes(4).toString('hex')}.yaml`);
    fs.writeFileSync(file, YAML.stringify(value));
    return ['-f', file];
  });
}

function template(...values: Array<string | Record<string, unknown>>): Promise<Run> {
  return runHelm([
    'template',
    RELEASE,
    CHART,
    '--namespace',
    NAMESPACE,
    '--kube-version',
    `${KUBERNETES_SCHEMA_VERSION}.0`,
    ...valuesArgs(values),
  ]);
}

async function render(...values: Array<string | Record<string, unknown>>): Promise<Manifest[]> {
  const result = await template(...values);
  if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return YAML.parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

const find = (manifests: Manifest[], kind: string, component: string) =>
  manifests.find((m) => m.kind === kind && m.metadata.labels?.['app.kubernetes.io/component'] === component);

const podSpecOf = (manifest: Manifest | undefined): PodSpec => {
  if (!manifest) throw new Error('no such object rendered');
  return (manifest.spec as { template: { spec: PodSpec } }).template.spec;
};

/** The role a container runs, from its command (`node dist/src/main/<role>.js`, `node dist/simulator/main.js`). */
function roleOf(container: Container): ProcessRole {
  const entry = container.command.find((part) => part.endsWith('.js'));
  const roles: Record<string, ProcessRole> = {
    'dist/src/main/api.js': 'api',
    'dist/src/main/worker.js': 'worker',
    'dist/simulator/main.js': 'simulator',
    'dist/src/main/cli.js': 'cli',
  };
  const role = roles[entry ?? ''];
  if (!role) throw new Error(`container ${container.name} runs ${container.command.join(' ')}: no known role`);
  return role;
}

/** Every app container of a release, with its role and the object it is in. */
function appContainers(manifests: Manifest[]): Array<{ object: string; role: ProcessRole; container: Container; pod: PodSpec }> {
  return manifests
    .filter((m) => m.kind === 'Deployment' || m.kind === 'Job')
    .flatMap((m) => {
      const pod = podSpecOf(m);
      return pod.containers.map((container) => ({ object: `${m.kind}/${m.metadata.name}`, role: roleOf(container), container, pod }));
    });
}

/**
 * What the process sees once the operator's Secrets exist: each plain value, and for each secretKeyRef a fresh strong
 * value (one per Secret key, so two processes reading the same key see the same value), or the URL a URL-valued key holds.
 * The optional references count as set: a deployment sets them (METRICS_TOKEN: it is scraped).
 */
function environmentOf(container: Container, secrets: Map<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { SWITCHBOARD_DATA_DIR: '/nonexistent' };
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    const ref = variable.valueFrom?.secretKeyRef;
    if (ref) {
      const id = `${ref.name}/${ref.key}`;
      if (!secrets.has(id)) {
        const urls: Record<string, string> = {
          DATABASE_URL: `postgres://switchboard_app:${crypto.randomBytes(16).toString('hex')}@db.example.internal:5432/switchboard`,
          SMTP_URL: `smtps://switchboard:${crypto.randomBytes(16).toString('hex')}@smtp.example.com:465`,
        };
        // Keys in the form their provider issues them (the startup check knows Stripe's).
        const prefixes: Record<string, string> = {
          STRIPE_LIVE_SECRET_KEY: 'sk_live_',
          STRIPE_TEST_SECRET_KEY: 'sk_test_',
          STRIPE_WEBHOOK_SECRET_LIVE: 'whsec_',
          STRIPE_WEBHOOK_SECRET_TEST: 'whsec_',
        };
        secrets.set(id, urls[ref.key] ?? `${prefixes[ref.key] ?? ''}${crypto.randomBytes(32).toString('hex')}`);
      }
      env[variable.name] = secrets.get(id);
    }
  }
  return env;
}

describe('the Helm chart', () => {
  let schemas: KubernetesSchemas;
  const releases: Record<string, Manifest[]> = {};

  beforeAll(async () => {
    // The first run on a machine builds Helm (minutes); later runs find it in the tool cache.
    helm = await ensureHelmBuild(loadConfig().toolCacheDir, (line) => process.stderr.write(`[helm] ${line}\n`));
    schemas = new KubernetesSchemas();
    releases.default = await render();
    releases.production = await render(PRODUCTION);
    releases.simulator = await render({ simulator: { enabled: true }, carrierCallbackBaseUrl: 'http://switchboard-api:8080' });
  }, 1_800_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it(`is Helm ${HELM_VERSION}, and the chart passes helm lint with the default and the production values`, async () => {
    expect((await runHelm(['version', '--short'])).stdout).toContain(HELM_VERSION);
    for (const values of [[], ['-f', PRODUCTION]]) {
      // Without --kube-version, as an operator runs it: Helm's default Kubernetes version must satisfy the chart's kubeVersion.
      const lint = await runHelm(['lint', CHART, '--strict', ...values]);
      expect({ values, code: lint.code, output: lint.code === 0 ? '' : lint.stdout + lint.stderr }).toEqual({
        values,
        code: 0,
        output: '',
      });
    }
  });

  it('renders what each values file asks for', () => {
    const kinds = (name: string) => releases[name].map((m) => `${m.kind}/${m.metadata.name}`).sort();
    expect(kinds('default')).toEqual([
      'Deployment/switchboard-api',
      'Deployment/switchboard-worker',
      'HorizontalPodAutoscaler/switchboard-api',
      'HorizontalPodAutoscaler/switchboard-worker',
      'Job/switchboard-migrations',
      'PersistentVolumeClaim/switchboard-recordings',
      'PodDisruptionBudget/switchboard-api',
      'PodDisruptionBudget/switchboard-worker',
      'Service/switchboard-api',
      'Service/switchboard-worker',
      'ServiceAccount/switchboard',
    ]);
    // S3 instead of the volume; the Prometheus Operator's ServiceMonitors.
    expect(kinds('production')).toEqual(
      [
        ...kinds('default').filter((k) => !k.startsWith('PersistentVolumeClaim/')),
        'ServiceMonitor/switchboard-api',
        'ServiceMonitor/switchboard-worker',
      ].sort(),
    );
    expect(kinds('simulator')).toEqual([...kinds('default'), 'Deployment/switchboard-simulator', 'Service/switchboard-simulator'].sort());
  });

  describe(`the Kubernetes ${KUBERNETES_SCHEMA_VERSION} API schemas`, () => {
    it('accept every rendered object, in every release', () => {
      for (const [name, manifests] of Object.entries(releases)) {
        for (const manifest of manifests) {
          const errors = schemas.validate(manifest);
          expect({ name, object: `${manifest.kind}/${manifest.metadata.name}`, errors }).toEqual({
            name,
            object: `${manifest.kind}/${manifest.metadata.name}`,
            errors: [],
          });
        }
      }
    });

    it('refuse a field the API does not know, a wrong type, a missing required field and an unknown kind (the check can fail)', () => {
      const deployment = structuredClone(find(releases.default, 'Deployment', 'api')!);
      const pod = podSpecOf(deployment) as unknown as Record<string, unknown> & PodSpec;
      pod.terminationGracePeriod = 30;
      (pod.containers[0] as unknown as Record<string, unknown>).readinessProbe = {
        httpGet: { path: '/readyz', port: 'http' },
        periodSeconds: '5',
      };
      delete (deployment.spec as Record<string, unknown>).selector;
      const paths = (schemas.validate(deployment) as Array<{ instancePath: string; params: Record<string, unknown> }>).map(
        (error) => `${error.instancePath} ${JSON.stringify(error.params)}`,
      );
      expect(paths).toEqual(
        expect.arrayContaining([
          '/spec/template/spec {"additionalProperty":"terminationGracePeriod"}',
          '/spec/template/spec/containers/0/readinessProbe/periodSeconds {"type":"integer"}',
          '/spec {"missingProperty":"selector"}',
        ]),
      );
      const monitor = structuredClone(find(releases.production, 'ServiceMonitor', 'api')!);
      (monitor.spec as { endpoints: Array<Record<string, unknown>> }).endpoints[0].bearerToken = 'in clear';
      expect(schemas.validate(monitor)).not.toEqual([]);
      expect(schemas.validate({ apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'old' } })).toMatch(
        /no schema/,
      );
    });
  });

  describe('settings', () => {
    it("runs each process with its role's node flags, before its entry point", () => {
      for (const [name, manifests] of Object.entries(releases)) {
        for (const { object, role, container } of appContainers(manifests)) {
          const entry = container.command.findIndex((part) => part.endsWith('.js'));
          expect({ name, object, flags: container.command.slice(1, entry) }).toEqual({ name, object, flags: [...NODE_FLAGS[role]] });
        }
      }
    });

    it("gives each process every setting its role's requirements list, and each passes its startup check", () => {
      for (const [name, manifests] of Object.entries(releases)) {
        const secrets = new Map<string, string>();
        const containers = appContainers(manifests);
        expect(containers.map(({ role }) => role).sort()).toEqual(
          (name === 'simulator' ? ['api', 'cli', 'simulator', 'worker'] : ['api', 'cli', 'worker']).sort(),
        );
        for (const { object, role, container } of containers) {
          const names = (container.env ?? []).map((v) => v.name);
          expect({ name, object, twice: names.filter((n, i) => names.indexOf(n) !== i) }).toEqual({ name, object, twice: [] });
          const env = environmentOf(container, secrets);
          const missing = deploymentSettings(role).filter((setting) => !env[setting]);
          expect({ name, object, missing }).toEqual({ name, object, missing: [] });
          const report = configurationReport(role, loadConfig(env), PROVIDER_SETTINGS);
          expect({ name, object, ...report }).toEqual({ name, object, problems: [], warnings: [] });
        }
      }
    });

    it('reads every secret from a Secret, never a value, and each role only the secrets it uses', () => {
      const secretNames = new Set([...Object.keys(SECRET_SETTINGS), 'DATABASE_URL', 'SMTP_URL']);
      for (const [name, manifests] of Object.entries(releases)) {
        for (const { object, role, container } of appContainers(manifests)) {
          for (const variable of container.env ?? []) {
            if (!secretNames.has(variable.name) && !/(SECRET|TOKEN|PASSWORD|_KEY)$/.test(variable.name)) continue;
            expect({
              name,
              object,
              variable: variable.name,
              value: variable.value,
              fromSecret: !!variable.valueFrom?.secretKeyRef,
            }).toEqual({
              name,
              object,
              variable: variable.name,
              value: undefined,
              fromSecret: true,
            });
          }
          const held = (container.env ?? []).map((v) => v.name).filter((n) => n in SECRET_SETTINGS);
          const allowed = [
            ...ROLE_REQUIREMENTS[role].secrets,
            ...ROLE_REQUIREMENTS[role].optionalSecrets,
            ...(role === 'api' ? ['CARRIER_API_KEY'] : []),
          ];
          expect({ object, extra: held.filter((n) => !allowed.includes(n as never)) }).toEqual({ object, extra: [] });
        }
        // No Secret or ConfigMap of the chart's own: nothing could hold a value.
        expect(manifests.filter((m) => m.kind === 'Secret' || m.kind === 'ConfigMap')).toEqual([]);
      }
      // The ServiceMonitor sends the token from the Secret too.
      const endpoint = (find(releases.production, 'ServiceMonitor', 'worker')!.spec as { endpoints: Array<Record<string, unknown>> })
        .endpoints[0];
      expect(endpoint).toMatchObject({
        port: 'metrics',
        path: '/metrics',
        authorization: { type: 'Bearer', credentials: { name: 'switchboard-secrets', key: 'METRICS_TOKEN' } },
      });
    });

    it('refuses to render a secret setting given in clear, in config or as an extraEnv value (the check can fail)', async () => {
      for (const secret of [
        ...Object.keys(SECRET_SETTINGS),
        'DATABASE_URL',
        'SMTP_URL',
        'STRIPE_LIVE_SECRET_KEY',
        'TWILIO_LIVE_AUTH_TOKEN',
      ]) {
        const inConfig = await template({ config: { [secret]: 'x'.repeat(64) } });
        expect({ secret, code: inConfig.code, said: /is a secret/.test(inConfig.stderr) }).toEqual({ secret, code: 1, said: true });
      }
      for (const key of ['extraEnv', 'api', 'worker'] as const) {
        const env = [{ name: 'SECRETS_KEY', value: 'x'.repeat(64) }];
        const result = await template(key === 'extraEnv' ? { extraEnv: env } : { [key]: { extraEnv: env } });
        expect({ key, code: result.code, stderr: result.stderr }).toEqual({
          key,
          code: 1,
          stderr: expect.stringContaining('SECRETS_KEY is a secret'),
        });
      }
      // Nor a setting the chart sets itself (a second HOST, a drain deadline the grace period would not follow).
      for (const setting of ['API_DRAIN_SECONDS', 'WORKER_SHUTDOWN_GRACE_SECONDS', 'TEMPORAL_ADDRESS', 'HOST']) {
        const result = await template({ config: { [setting]: '1' } });
        expect({ setting, code: result.code, stderr: result.stderr }).toEqual({
          setting,
          code: 1,
          stderr: expect.stringContaining(`the chart sets ${setting}`),
        });
      }
      // A reference is what it asks for; a non-secret value is fine.
      await expect(
        render({
          extraEnv: [
            { name: 'STRIPE_LIVE_SECRET_KEY', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
            { name: 'TELNYX_PUBLIC_KEY', value: 'pk' },
          ],
        }),
      ).resolves.toBeTruthy();
      // And a plain-http public URL, or no Secret named at all.
      expect((await template({ publicBaseUrl: 'http://switchboard.example.com' })).stderr).toContain('is not https');
      expect((await template({ secrets: { existingSecret: '' } })).stderr).toContain('secrets.existingSecret');
    });

    it('connects to Temporal over mTLS with the certificate mounted from a Secret (production example)', () => {
      for (const component of ['api', 'worker']) {
        const pod = podSpecOf(find(releases.production, 'Deployment', component));
        const env = Object.fromEntries((pod.containers[0].env ?? []).map((v) => [v.name, v.value]));
        expect(env).toMatchObject({
          TEMPORAL_ADDRESS: 'switchboard.a1b2c.tmprl.cloud:7233',
          TEMPORAL_NAMESPACE: 'switchboard.a1b2c',
          TEMPORAL_TLS: 'true',
          TEMPORAL_TLS_CLIENT_CERT_PATH: '/etc/switchboard/temporal-tls/tls.crt',
          TEMPORAL_TLS_CLIENT_KEY_PATH: '/etc/switchboard/temporal-tls/tls.key',
        });
        // What the app reads of them (src/platform/config.ts, temporalTlsOf in src/platform/temporal/client.ts).
        expect(loadConfig(env as NodeJS.ProcessEnv).temporalTls).toEqual({
          clientCertPath: '/etc/switchboard/temporal-tls/tls.crt',
          clientKeyPath: '/etc/switchboard/temporal-tls/tls.key',
        });
        expect(pod.volumes).toContainEqual({
          name: 'temporal-tls',
          secret: { secretName: 'switchboard-temporal-tls', defaultMode: 0o400 },
        });
        expect(pod.containers[0].volumeMounts).toContainEqual({
          name: 'temporal-tls',
          mountPath: '/etc/switchboard/temporal-tls',
          readOnly: true,
        });
      }
      const database = podSpecOf(find(releases.production, 'Job', 'migrations')).containers[0].env!.find((v) => v.name === 'DATABASE_URL');
      expect(database?.valueFrom?.secretKeyRef).toEqual({ name: 'switchboard-database', key: 'DATABASE_URL' });
    });
  });

  describe('lifecycle', () => {
    it('gives each pod the grace its drain needs: the deadline, the close margin of drain.ts and 5 s more', () => {
      const closeMargin = CLOSE_MARGIN_MS / 1000;
      for (const [name, manifests] of Object.entries(releases)) {
        const api = podSpecOf(find(manifests, 'Deployment', 'api'));
        const apiEnv = Object.fromEntries((api.containers[0].env ?? []).map((v) => [v.name, v.value]));
        const preStop = api.containers[0].lifecycle?.preStop?.sleep?.seconds ?? 0;
        const apiDrain = loadConfig(apiEnv as NodeJS.ProcessEnv).apiDrainSeconds;
        expect({ name, preStop: preStop > 0, grace: api.terminationGracePeriodSeconds }).toEqual({
          name,
          preStop: true,
          grace: preStop + apiDrain + closeMargin + 5,
        });

        const worker = podSpecOf(find(manifests, 'Deployment', 'worker'));
        const workerEnv = Object.fromEntries((worker.containers[0].env ?? []).map((v) => [v.name, v.value]));
        const grace = loadConfig(workerEnv as NodeJS.ProcessEnv).workerShutdownGraceSeconds;
        expect({ name, grace: worker.terminationGracePeriodSeconds }).toEqual({ name, grace: grace + closeMargin + 5 });
      }
      // The production example's longer worker grace moves the pod's.
      expect(podSpecOf(find(releases.production, 'Deployment', 'worker')).terminationGracePeriodSeconds).toBe(60 + closeMargin + 5);
    });

    it("probes what each process serves: /readyz and /healthz, the API's on its port, the worker's beside its /metrics", () => {
      const api = podSpecOf(find(releases.default, 'Deployment', 'api')).containers[0];
      expect(api.readinessProbe).toMatchObject({ httpGet: { path: '/readyz', port: 'http' } });
      expect(api.livenessProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'http' } });
      const worker = podSpecOf(find(releases.default, 'Deployment', 'worker')).containers[0];
      const port = worker.env!.find((v) => v.name === 'WORKER_METRICS_PORT')?.value;
      expect(worker.readinessProbe).toMatchObject({ httpGet: { path: '/readyz', port: 'metrics' } });
      expect(worker.livenessProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'metrics' } });
      expect((worker as unknown as { ports: Array<{ name: string; containerPort: number }> }).ports).toEqual([
        { name: 'metrics', containerPort: Number(port), protocol: 'TCP' },
      ]);
      const simulator = podSpecOf(find(releases.simulator, 'Deployment', 'simulator')).containers[0];
      expect(simulator.readinessProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'http' } });
    });

    it('runs the migrations as a pre-install and pre-upgrade hook, before the pods of the release', () => {
      const job = find(releases.default, 'Job', 'migrations')!;
      expect(job.metadata.annotations).toMatchObject({
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
      const pod = podSpecOf(job) as PodSpec & { restartPolicy: string };
      expect(pod.containers[0].command).toEqual(['node', 'dist/src/main/cli.js', 'migrate']);
      expect(pod.restartPolicy).toBe('Never');
    });

    it('scales the API and the workers with autoscaling/v2 HPAs, and bounds voluntary disruptions', () => {
      for (const component of ['api', 'worker']) {
        const hpa = find(releases.default, 'HorizontalPodAutoscaler', component)!;
        expect(hpa.spec).toMatchObject({
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `switchboard-${component}` },
          minReplicas: 2,
        });
        // The HPA owns the replica count.
        expect((find(releases.default, 'Deployment', component)!.spec as Record<string, unknown>).replicas).toBeUndefined();
        expect(find(releases.default, 'PodDisruptionBudget', component)!.spec).toEqual({
          maxUnavailable: 1,
          selector: {
            matchLabels: {
              'app.kubernetes.io/name': 'switchboard',
              'app.kubernetes.io/instance': RELEASE,
              'app.kubernetes.io/component': component,
            },
          },
        });
      }
    });
  });

  it('runs every container as uid 1000, non-root, read-only root filesystem, no privilege, with resource requests', () => {
    for (const [name, manifests] of Object.entries(releases)) {
      for (const { object, container, pod } of appContainers(manifests)) {
        expect({ name, object, pod: pod.securityContext }).toMatchObject({
          name,
          object,
          pod: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 },
        });
        expect({ name, object, container: container.securityContext }).toMatchObject({
          name,
          object,
          container: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
        });
        expect({ name, object, requests: Object.keys(container.resources?.requests ?? {}).sort() }).toEqual({
          name,
          object,
          requests: ['cpu', 'memory'],
        });
        // A writable /tmp on the read-only root.
        expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      }
    }
    // The filesystem recordings store: the one claim, mounted where RECORDINGS_DIR says, in the API and the workers.
    for (const component of ['api', 'worker']) {
      const pod = podSpecOf(find(releases.default, 'Deployment', component));
      expect(pod.volumes).toContainEqual({ name: 'recordings', persistentVolumeClaim: { claimName: 'switchboard-recordings' } });
      expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'recordings', mountPath: '/data/recordings' });
      expect(pod.containers[0].env).toContainEqual({ name: 'RECORDINGS_DIR', value: '/data/recordings' });
    }
  });
});
