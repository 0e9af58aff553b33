import crypto from 'node:crypto';
import { CALLEE } from './customer';

/**
 * A completed outbound test call as its workflow leaves the row, to insert where a test needs calls' history without
 * placing them (the portal's lists, search, timeline); `fields` override any column.
 */
export function completedCallRow(tenant: { workspaceId: string; lineId: string }, fields: Record<string, unknown> = {}) {
  return {
    id: crypto.randomUUID(),
    workspace_id: tenant.workspaceId,
    environment: 'test',
    line_id: tenant.lineId,
    direction: 'outbound',
    from_number: '+14155550100',
    to_number: CALLEE,
    status: 'completed',
    mode: 'hosted',
    zone: 'A',
    created_at: new Date(),
    ...fields,
  };
}
