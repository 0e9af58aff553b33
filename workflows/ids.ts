/** Workflow ids derived from business ids, so starting twice is refused by Temporal itself. */
export const workflowIds = {
  provisionLine: (lineId: string) => `line-provision:${lineId}`,
};
