import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTenant, webhookLine } from '../support/harness';
import { runCli as cli } from '../support/cliRun';
import { useSuite } from '../support/suite';

/**
 * `history export` and `history replay`, run as the image runs them, from the run's production build (test/support/cliRun.ts;
 * the replay that bundles the workflow sources runs them as `npm run cli` does, and test/integration/cli.test.ts runs one
 * command through npm itself) against a real Temporal server and a real workflow run.
 */
describe('operator CLI: workflow histories', () => {
  const { h } = useSuite({ worker: true, tenant: 'none' });
  let dir: string;
  const root = path.resolve(__dirname, '../..');

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-history-cli-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('exports a line provisioning history by line id, replays it, and catches a nondeterministic edit', async () => {
    const tenant = await createTenant(h.db);
    const created = await h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body: webhookLine() });
    expect(created.status).toBeLessThan(300);
    const lineId: string = created.body.line.id;
    const workflowId = `line-provision:${lineId}`;
    await h.temporal.workflow.getHandle(workflowId).result();

    const file = path.join(dir, 'provision.json');
    const exported = cli(['history', 'export', lineId, '--out', file, '--json']);
    expect(exported.stderr).toBe('');
    expect(exported.status).toBe(0);
    expect(exported.json).toEqual({ workflow_id: workflowId, run_id: expect.any(String), events: expect.any(Number), file });
    const history = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(history.events.length).toBe(exported.json.events);
    expect(history.events[0].workflowExecutionStartedEventAttributes.workflowType.name).toBe('provisionLineWorkflow');
    expect(history.events.at(-1).eventType).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');

    // The workflow id itself works too; without --out the file is named after it, in the working directory.
    const defaultFile = path.join(root, `line-provision_${lineId}.history.json`);
    try {
      const byWorkflowId = cli(['history', 'export', workflowId]);
      expect(byWorkflowId.status).toBe(0);
      expect(byWorkflowId.stdout).toContain(`workflow_id: ${workflowId}\n`);
      expect(byWorkflowId.stdout).toContain(`file: ${defaultFile}\n`);
      expect(JSON.parse(fs.readFileSync(defaultFile, 'utf8'))).toEqual(history);
    } finally {
      fs.rmSync(defaultFile, { force: true });
    }

    const replayed = cli(['history', 'replay', file, '--json']);
    expect(replayed.status).toBe(0);
    expect(replayed.json).toEqual({ file, workflow_type: 'provisionLineWorkflow', result: 'pass' });

    // The history says the first activity was another one than the code schedules.
    const scheduled = history.events.find((event: { eventType: string }) => event.eventType === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED');
    expect(scheduled.activityTaskScheduledEventAttributes.activityType.name).toBe('provisionNumber');
    scheduled.activityTaskScheduledEventAttributes.activityType.name = 'someOtherActivity';
    const corrupted = path.join(dir, 'corrupted.json');
    fs.writeFileSync(corrupted, JSON.stringify(history));

    const failed = cli(['history', 'replay', corrupted, '--json']);
    expect(failed.status).toBe(1);
    expect(failed.stdout.trim().split('\n')).toHaveLength(1); // the replay worker's own logs stay off stdout
    expect(failed.json).toMatchObject({
      file: corrupted,
      workflow_type: 'provisionLineWorkflow',
      result: 'fail',
      nondeterminism: true,
      error: { code: 'replay_failed', message: expect.stringMatching(/nondeterminism/i) },
    });
    expect(String((failed.json.error as { message: string }).message)).toContain('someOtherActivity');

    const human = cli(['history', 'replay', corrupted]);
    expect(human.status).toBe(1);
    expect(human.stderr).toMatch(/error: replay of .*corrupted\.json failed: provisionLineWorkflow is not deterministic/);
  });

  it('replays a recorded history, bundling the workflow sources when no bundle is given', () => {
    const file = path.join(dir, 'recorded.json');
    fs.copyFileSync(path.resolve(__dirname, '../histories/releaseLineWorkflow.json'), file);
    // From the sources (`npm run cli`): the build's CLI has its own bundle beside it.
    const out = cli(['history', 'replay', file, '--json'], { WORKFLOW_BUNDLE_PATH: '' }, { fromSources: true });
    expect(out.status).toBe(0);
    expect(out.json).toEqual({ file, workflow_type: 'releaseLineWorkflow', result: 'pass' });
  });

  it('fails clearly: not a history, missing file, unknown id', () => {
    const notHistory = path.join(dir, 'not-history.json');
    fs.writeFileSync(notHistory, JSON.stringify({ hello: 'world' }));
    const bad = cli(['history', 'replay', notHistory, '--json']);
    expect(bad.status).toBe(1);
    expect(bad.json).toEqual({ error: { code: 'invalid_history', message: expect.stringContaining('is not a workflow history') } });

    const notJson = path.join(dir, 'not-json.json');
    fs.writeFileSync(notJson, 'hello');
    expect(cli(['history', 'replay', notJson, '--json']).json).toMatchObject({ error: { code: 'invalid_history' } });

    const missing = cli(['history', 'replay', path.join(dir, 'nope.json'), '--json']);
    expect(missing.status).toBe(1);
    expect(missing.json).toMatchObject({ error: { code: 'not_found' } });

    const unknown = cli(['history', 'export', '00000000-0000-0000-0000-000000000000', '--json']);
    expect(unknown.status).toBe(1);
    expect(unknown.json).toEqual({
      error: { code: 'not_found', message: expect.stringContaining('no workflow history found for 00000000-0000-0000-0000-000000000000') },
    });
  });
});
