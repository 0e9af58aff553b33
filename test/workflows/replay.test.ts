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
import { BUILD_DIR_ENV } from '../support/workflowBundle';
import { BUILD_ENTRY_POINTS, WORKFLOW_BUNDLE_FILE } from '../../src/platform/buildLayout';

/**
 * Every recorded history under test/histories/ must replay against the current workflow
 * code, as it ships: the production build's dist/workflow-bundle.js. A change that would break a running workflow (a new activity call without
 * `patched()`, a reordered step) fails here with a determinism error.
 */
const dir = path.resolve(__dirname, '../histories');
const files = fs.readdirSync(dir).filter((file) => file.endsWith('.json'));
const recorded = (file: string) => temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));

type ReplayOptions = Parameters<typeof Worker.runReplayHistories>[0];
type History = ReturnType<typeof recorded>;

/**
 * Replays `histories` one after another in one replay worker (`Worker.runReplayHistory` makes a worker, and loads the
 * bundle, per history): each history's outcome by its name, the error `runReplayHistory` would throw for it (a
 * determinism violation or a failed replay), undefined when it replays. Each test then reads its own history's outcome.
 */
async function replayAll(
  options: ReplayOptions,
  histories: Array<{ workflowId: string; history: History }>,
): Promise<Map<string, Error | undefined>> {
  const byName = new Map<string, Error | undefined>();
  for await (const result of Worker.runReplayHistories(options, histories)) byName.set(result.workflowId, result.error);
  return byName;
}

/** The outcome of `name`'s replay: throws what `runReplayHistory` would have thrown for it. */
function expectReplayed(outcomes: Map<string, Error | undefined>, name: string): void {
  if (!outcomes.has(name)) throw new Error(`${name} was not replayed (the replay worker stopped before it)`);
  const error = outcomes.get(name);
  if (error) throw error;
}

/** The files' replays take longer together than one test's timeout on a loaded machine. */
const REPLAY_ALL_TIMEOUT_MS = 300_000;

describe('workflow history replay', () => {
  it("replays against the production build's bundle (npm run build, made once by the global setup)", () => {
    const build = process.env[BUILD_DIR_ENV]!;
    expect(process.env.WORKFLOW_BUNDLE_PATH).toBe(path.join(build, WORKFLOW_BUNDLE_FILE));
    expect(fs.existsSync(path.join(build, BUILD_ENTRY_POINTS.worker))).toBe(true);
  });

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

  let outcomes: Map<string, Error | undefined>;
  beforeAll(async () => {
    // Recorded with JSON.stringify of the History message, which fromObject inverts exactly.
    outcomes = await replayAll(
      { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } },
      files.map((file) => ({ workflowId: file, history: recorded(file) })),
    );
  }, REPLAY_ALL_TIMEOUT_MS);

  it.each(files)('replays %s', (file) => {
    expectReplayed(outcomes, file);
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
  const encrypted = new Map<string, History>();
  let outcomes: Map<string, Error | undefined>;

  beforeAll(async () => {
    for (const file of files)
      encrypted.set(
        file,
        await transformHistoryPayloads(recorded(file), (payloads) => codec.encode(payloads), encryptedByClientsAndWorkers),
      );
    outcomes = await replayAll(
      options(),
      files.flatMap((file) => [
        { workflowId: `${file} (encrypted)`, history: encrypted.get(file)! },
        { workflowId: `${file} (through the codec)`, history: recorded(file) },
      ]),
    );
  }, REPLAY_ALL_TIMEOUT_MS);

  it.each(files)('replays %s encrypted, and as recorded (unencrypted) through the codec', (file) => {
    const started = encrypted.get(file)!.events[0].workflowExecutionStartedEventAttributes!;
    for (const payload of started.input?.payloads ?? [])
      expect(Buffer.from(payload.metadata!.encoding!).toString()).toBe('binary/encrypted');
    expectReplayed(outcomes, `${file} (encrypted)`);
    expectReplayed(outcomes, `${file} (through the codec)`);
  });
});
