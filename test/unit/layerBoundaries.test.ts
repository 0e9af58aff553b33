import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The layer rules of docs/architecture.md (.dependency-cruiser.cjs, run by `npm run lint`), held
 * against a small tree of probe modules: each forbidden import is reported under its rule, and
 * the allowed ones (pure rules in a workflow, type-only imports) are not.
 */
const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

function cruise(cwd: string, folders: string[]): Violation[] {
  const result = spawnSync(
    process.execPath,
    [cli, '--config', path.join(root, '.dependency-cruiser.cjs'), '--output-type', 'json', ...folders],
    {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (!result.stdout) throw new Error(`depcruise printed nothing: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const PROBES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'node16', moduleResolution: 'node16', strict: true } }),
  'activities/calls.ts': 'export const activity = 1;\nexport type ActivityType = number;\n',
  'api/routes/probe.ts': "import { activity } from '../../activities/calls';\nexport const route = activity;\n",
  'api/openapi/probe.ts': "import { route } from '../routes/probe';\nexport const documented = route;\n",
  'src/domain/calls/rules.ts': 'export const rule = 1;\n',
  'src/domain/calls/probe.ts': "import { route } from '../../../api/routes/probe';\nexport const useCase = route;\n",
  'src/domain/webhooks/probe.ts': "import { rule } from '../calls/rules';\nexport const delivery = rule;\n",
  'src/domain/cycle/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
  'src/domain/cycle/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
  'src/platform/db/knex.ts': 'export const db = 1;\n',
  'src/platform/probe.ts': "import { rule } from '../domain/calls/rules';\nexport const platform = rule;\n",
  'workflows/probe.ts': "import { db } from '../src/platform/db/knex';\nexport const workflow = db;\n",
  'workflows/allowed.ts':
    "import { rule } from '../src/domain/calls/rules';\nimport type { ActivityType } from '../activities/calls';\nexport const allowed: ActivityType = rule;\n",
  'workflows/definitions/probe.ts': "import type { ActivityType } from '../../activities/calls';\nexport type Contract = ActivityType;\n",
  // A provider's callbacks: api/ reaches them through the facade (the folder's index.ts) only.
  'src/adapters/carrier/acme/callbacks/verify.ts': 'export const verify = 1;\n',
  'src/adapters/carrier/acme/callbacks/index.ts': "export { verify } from './verify';\n",
  'api/routes/providerInternal.ts':
    "import { verify } from '../../src/adapters/carrier/acme/callbacks/verify';\nexport const internal = verify;\n",
  'api/routes/providerFacade.ts': "import { verify } from '../../src/adapters/carrier/acme/callbacks';\nexport const facade = verify;\n",
  'simulator/probe.ts': "import { rule } from '../src/domain/calls/rules';\nexport const simulated = rule;\n",
  'sdk/probe.ts': "import { db } from '../src/platform/db/knex';\nexport const sdk = db;\n",
  'dev/infra/proc.ts': 'export const run = 1;\n',
  'dev/probe.ts': "import { harness } from '../test/support/harness';\nexport const tool = harness;\n",
  'src/domain/calls/devProbe.ts': "import { run } from '../../../dev/infra/proc';\nexport const useCaseWithTools = run;\n",
  'src/main/up.ts': "import { run } from '../../dev/infra/proc';\nexport const up = run;\n",
  'test/support/harness.ts': 'export const harness = 1;\n',
  'test/support/receiver.ts': 'export const receiver = 1;\n',
  'bench/probe.ts': "import { receiver } from '../test/support/receiver';\nexport const bench = receiver;\n",
  'bench/allowed.ts':
    "import { harness } from '../test/support/harness';\nimport { run } from '../dev/infra/proc';\nexport const allowedBench = harness + run;\n",
};

describe('layer boundaries (npm run lint)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-boundaries-'));
    for (const [file, text] of Object.entries(PROBES)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reports every forbidden import under its rule, and nothing else', () => {
    const found = cruise(dir, ['api', 'workflows', 'activities', 'src', 'simulator', 'sdk', 'dev', 'bench', 'test'])
      .map((v) => `${v.rule.name}: ${v.from}`)
      .sort();
    expect([...new Set(found)]).toEqual(
      [
        'definitions-own-the-contract: workflows/definitions/probe.ts',
        'benches-not-tests: bench/probe.ts',
        'dev-stands-alone: dev/probe.ts',
        'domain-below-transports: src/domain/calls/probe.ts',
        'product-never-imports-dev: src/domain/calls/devProbe.ts',
        'http-only-in-api: api/routes/probe.ts',
        'http-only-in-api: api/routes/providerInternal.ts',
        'no-cycles: src/domain/cycle/a.ts',
        'openapi-below-routes: api/openapi/probe.ts',
        'platform-has-no-business: src/platform/probe.ts',
        'sdk-is-the-customers: sdk/probe.ts',
        'simulator-is-another-program: simulator/probe.ts',
        'webhooks-deliver-any-event: src/domain/webhooks/probe.ts',
        'workflows-deterministic: workflows/probe.ts',
      ].sort(),
    );
  });

  it('the project itself keeps every rule', () => {
    expect(cruise(root, ['api', 'workflows', 'activities', 'src', 'simulator', 'sdk', 'dev', 'bench', 'test'])).toEqual([]);
  });
});
