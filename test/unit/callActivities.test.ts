import { ApplicationFailure } from '@temporalio/common';
import { createCallActivities } from '../../activities/calls';
import { generateSecretsKey, parseSecretsKey } from '../../src/platform/crypto/secretBox';
import { EgressPolicy } from '../../src/platform/net/egress';
import { CarrierRejectedError, type CarrierAdapter } from '../../src/adapters/carrier/port';
import type { Db } from '../../src/platform/db/knex';

/**
 * Every carrier command of the call workflow turns the carrier's refusal into the one failure
 * type the workflow treats as final (`CarrierRejected`, non-retryable); other carrier errors stay
 * retryable (security review H1: the refusal used to surface as a retryable `CarrierRejectedError`).
 */
describe('call activities: carrier refusals', () => {
  const refusing = (error: Error): CarrierAdapter =>
    new Proxy({} as CarrierAdapter, {
      get: () => async () => {
        throw error;
      },
    });
  const activitiesWith = (carrier: CarrierAdapter) =>
    createCallActivities({
      db: {} as Db,
      carrier,
      carrierEventsUrl: 'http://127.0.0.1:9/carrier/events',
      temporal: () => {
        throw new Error('carrier commands start no workflow');
      },
      taskQueue: 'unused',
      secretsKey: () => parseSecretsKey(generateSecretsKey()),
      egress: new EgressPolicy(),
      now: () => new Date(),
    });
  const facts = {
    callId: 'c1',
    workspaceId: 'w',
    environment: 'test' as const,
    lineId: 'l',
    keyId: null,
    direction: 'outbound' as const,
    from: '+14155550100',
    to: '+14155550101',
  };

  const commands = (a: ReturnType<typeof activitiesWith>): Array<[string, () => Promise<unknown>]> => [
    ['placeCall', () => a.placeCall(facts)],
    ['answerCall', () => a.answerCall('c1', 'CA1')],
    ['rejectCall', () => a.rejectCall('CA1')],
    ['speak', () => a.speak('CA1', 'c1:speak-1', 'Hello')],
    ['stopSpeaking', () => a.stopSpeaking('CA1')],
    ['hangUpCall', () => a.hangUpCall('CA1')],
  ];

  it.each(commands(activitiesWith(refusing(new CarrierRejectedError('409 call is not answered')))).map(([name, run]) => [name, run]))(
    '%s: a refusal is a non-retryable CarrierRejected failure',
    async (_name, run) => {
      const failure = await (run as () => Promise<unknown>)().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure).toMatchObject({ type: 'CarrierRejected', nonRetryable: true });
    },
  );

  it.each(commands(activitiesWith(refusing(new Error('503 carrier unavailable')))).map(([name, run]) => [name, run]))(
    '%s: a transient error stays retryable',
    async (_name, run) => {
      const failure = await (run as () => Promise<unknown>)().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).not.toBeInstanceOf(ApplicationFailure);
      expect((failure as Error).message).toBe('503 carrier unavailable');
    },
  );

  it('sendDigits: a refusal is `pressed: false`', async () => {
    await expect(activitiesWith(refusing(new CarrierRejectedError('409'))).sendDigits('CA1', '1')).resolves.toEqual({ pressed: false });
  });
});
