import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import * as workflows from '../../workflows';

/**
 * Every recorded history under test/histories/ must replay against the current workflow
 * code. A change that would break a running workflow (a new activity call without
 * `patched()`, a reordered step) fails here with a determinism error.
 */
const dir = path.resolve(__dirname, '../histories');
const files = fs.readdirSync(dir).filter((file) => file.endsWith('.json'));

describe('workflow history replay', () => {
  it('has at least one history per workflow type', () => {
    const types = new Set(
      files.map((file) => {
        const history = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
        return history.events[0].workflowExecutionStartedEventAttributes.workflowType.name;
      }),
    );
    const exported = Object.keys(workflows);
    expect([...types].sort()).toEqual(exported.sort());
  });

  it.each(files)('replays %s', async (file) => {
    // Recorded with JSON.stringify of the History message, which fromObject inverts exactly.
    const history = temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } }, history, file);
  });
});
