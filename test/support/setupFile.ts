import { DefaultLogger, Runtime } from '@temporalio/worker';

// Each test file gets its own module registry, hence its own Temporal Runtime: keep its log quiet.
Runtime.install({ logger: new DefaultLogger('ERROR') });
