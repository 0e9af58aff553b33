/** Every workflow the worker runs. Workflow code is deterministic: no I/O, clocks or randomness here. */
export { provisionLineWorkflow } from './lines';
export { purgeExpiredRecordsWorkflow } from './maintenance';
