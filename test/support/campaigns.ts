import type { Db } from '../../src/platform/db/knex';

export interface CampaignCallRow {
  id: string;
  to_number: string;
  status: string;
  answered_by: string | null;
  end_cause: string | null;
}

/** A campaign's calls as the database has them (a test's own reads stay off the API's read limit). */
export function campaignCalls(db: Db, campaignId: string): Promise<CampaignCallRow[]> {
  return db('calls')
    .whereIn('id', db('campaign_attempts').where({ campaign_id: campaignId }).select('call_id'))
    .select<CampaignCallRow[]>('id', 'to_number', 'status', 'answered_by', 'end_cause');
}
