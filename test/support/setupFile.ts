import { DefaultLogger, Runtime } from '@temporalio/worker';
import { useWorkerResources } from './workerResources';

// Each test file gets its own module registry, hence its own Temporal Runtime: keep its log quiet.
Runtime.install({ logger: new DefaultLogger('ERROR') });

// Files run in parallel: this one uses its jest worker's own database and Temporal namespace.
useWorkerResources();
