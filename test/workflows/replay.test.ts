import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import * as workflows from '../../workflows';
import { payloadEncryptionCodec } from '../../src/platform/codecs/payloadEncryption';
import { generateSecretsKey } from '../../src/platform/crypto/secretBox';
import { dataConverterWith } from '../../src/platform/temporal/client';
import { transformHistoryPayloads } from '../../src/platform/temporal/historyPayloads';
import { encryptedByClientsAndWorkers } from '../support/payloadCodec';

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

/**
 * The same histories as the server keeps them since the payload codec (security review L10): every
 * payload encrypted. A worker's codec decrypts them before the workflow code sees them, so they
 * replay alike; and the codec passes the unencrypted recordings above through.
 */
describe('workflow history replay with the payload codec', () => {
  const codec = payloadEncryptionCodec(generateSecretsKey());
  const options = () => ({ workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! }, dataConverter: dataConverterWith(codec) });
  const recorded = (file: string) => temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));

  it.each(files)('replays %s encrypted, and as recorded (unencrypted) through the codec', async (file) => {
    const encrypted = await transformHistoryPayloads(recorded(file), (payloads) => codec.encode(payloads), encryptedByClientsAndWorkers);
    const started = encrypted.events[0].workflowExecutionStartedEventAttributes!;
    for (const payload of started.input?.payloads ?? [])
      expect(Buffer.from(payload.metadata!.encoding!).toString()).toBe('binary/encrypted');
    await Worker.runReplayHistory(options(), encrypted, `${file} (encrypted)`);
    await Worker.runReplayHistory(options(), recorded(file), `${file} (through the codec)`);
  });
});
