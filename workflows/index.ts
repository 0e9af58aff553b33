/** Every workflow the worker runs. Workflow code is deterministic: no I/O, clocks or randomness here. */
export { provisionLineWorkflow, releaseLineWorkflow } from './lines';
export { lineSecretsWorkflow } from './lineSecrets';
export { purgeExpiredRecordsWorkflow } from './maintenance';
export { deliverEventWorkflow, sweepStrandedEventsWorkflow } from './webhooks';
export { autoChargeWorkflow, closeSpendPeriodWorkflow, postNumberFeesWorkflow } from './billing';
export { callWorkflow } from './calls/workflow';
export { campaignAttemptWorkflow, campaignWorkflow } from './campaigns';
export { sendMessageBatchWorkflow, sendMessageWorkflow } from './messages';
export { sweepUndispatchedMessagesWorkflow } from './messageDispatch';
export { recoverOrphansWorkflow } from './recovery';
export { sweepTelnyxInboxWorkflow } from './telnyxInbox';
export { callCopyWorkflow, recordingsRetentionWorkflow, sweepCallCopiesWorkflow } from './recordings';
