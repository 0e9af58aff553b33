import type { Config } from '../../src/platform/config';
import { createTenant, startHarness, type Harness, type HarnessOptions, type Tenant } from './harness';
import { resetPortalLimits } from './portalClient';
import { startReceiver, type Receiver } from './receiver';

export interface SuiteOptions extends HarnessOptions {
  /** Starts the harness's in-process worker with the API. */
  worker?: boolean;
  /** A webhook receiver for the file (`receiver`), emptied before each test. */
  receiver?: boolean;
  /** A portal suite: each test starts with the portal's limits unspent (every visitor here comes from 127.0.0.1). */
  portal?: boolean;
  /**
   * The suite's `tenant`: a fresh one for `each` test (the default), one for the whole `file`, or `none`
   * (portal suites, whose visitors sign up themselves, default to `none`).
   */
  tenant?: 'each' | 'file' | 'none';
  /** The deployment's configuration beyond the harness's; a function when it is known only once earlier hooks ran (a stub's URL). */
  overrides?: Partial<Config> | (() => Partial<Config>);
}

/** What a suite's tests read: the same objects for the whole file, filled in by the suite's hooks. */
export interface Suite {
  h: Harness;
  tenant: Tenant;
  /** Set when the suite asked for one. */
  receiver: Receiver;
}

/**
 * The one set-up of an integration suite: a harness for the file (the real API, optionally its worker,
 * the carrier simulator), its tenant and webhook receiver as the options say. Declare it at the top of
 * the `describe` and destructure it there (`const { h, tenant } = useSuite({ worker: true })`): the
 * returned objects keep their identity and are filled in before the file's own hooks that follow run,
 * so tests read them directly.
 */
export function useSuite(options: SuiteOptions = {}): Suite {
  const suite: Suite = { h: {} as Harness, tenant: {} as Tenant, receiver: {} as Receiver };
  const tenantEvery = options.tenant ?? (options.portal ? 'none' : 'each');
  let harness: Harness | undefined;
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    const overrides = typeof options.overrides === 'function' ? options.overrides() : options.overrides;
    // The suite's options are the harness's and more (SuiteOptions extends HarnessOptions): the harness reads its own.
    harness = await startHarness(overrides, options);
    Object.assign(suite.h, harness);
    if (options.worker) await harness.startWorker();
    if (options.receiver) Object.assign(suite.receiver, (receiver = await startReceiver()));
    if (tenantEvery === 'file') Object.assign(suite.tenant, await createTenant(harness.db));
  });
  afterAll(async () => {
    await receiver?.close();
    await harness?.close();
  });
  beforeEach(async () => {
    if (tenantEvery === 'each') Object.assign(suite.tenant, await createTenant(suite.h.db));
    if (options.receiver) suite.receiver.requests.length = 0;
    if (options.portal) await resetPortalLimits(suite.h.db);
  });
  return suite;
}
