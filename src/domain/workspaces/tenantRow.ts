/**
 * The columns a call row and a message row share: whose it is (workspace and environment: test
 * and live data never mix), the line it went through, the key that acted (null when the carrier
 * or the service did) and which way it went.
 */
export interface TenantRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  line_id: string;
  actor_key_id: string | null;
  direction: 'inbound' | 'outbound';
}
