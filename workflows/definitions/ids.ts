/** Workflow ids derived from business ids, so starting twice is refused by Temporal itself. */
export const workflowIds = {
  provisionLine: (lineId: string) => `line-provision:${lineId}`,
  releaseLine: (lineId: string) => `line-release:${lineId}`,
  lineSecrets: (lineId: string) => `line-secrets:${lineId}`,
  deliverEvent: (eventId: string) => `webhook-event:${eventId}`,
  /** An operator's redelivery of an event as attempt `attempt`: a double click starts it once. */
  redeliverEvent: (eventId: string, attempt: number) => `webhook-redeliver:${eventId}:${attempt}`,
  /** One message's own send workflow: messages accepted before batches (migration 0060), and nothing newer. */
  sendMessage: (messageId: string) => `message-send:${messageId}`,
  /** The send workflow of one claimed batch of messages (`messages.dispatch_batch_id`). */
  sendMessageBatch: (batchId: string) => `message-batch:${batchId}`,
  autoCharge: (workspaceId: string, environment: string) => `auto-charge:${workspaceId}:${environment}`,
  /** Ends one call whose own workflow is gone (asked for by a hang-up or a line release). */
  callRecovery: (callId: string) => `call-recovery:${callId}`,
  /** The durable copy of one call's recording, transcript and events into the recordings store (one run at a time). */
  callCopy: (callId: string) => `call-copy:${callId}`,
  /** A campaign's dispatcher, for its whole life (continued as new as its history grows). */
  campaign: (campaignId: string) => `campaign:${campaignId}`,
  /** One claim of one contact by the dispatcher: a claim starts one attempt, whatever replays. */
  campaignAttempt: (contactId: string, claimToken: string) => `campaign-attempt:${contactId}:${claimToken}`,
};
