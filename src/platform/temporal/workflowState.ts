import { WorkflowNotFoundError, type Client } from '@temporalio/client';

/** Whether the workflow `workflowId` (its latest run) is running, closed, or unknown to the namespace (never started, or past retention). */
export async function workflowState(client: Client, workflowId: string): Promise<'running' | 'closed' | 'missing'> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    return description.status.name === 'RUNNING' ? 'running' : 'closed';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'missing';
    throw err;
  }
}
