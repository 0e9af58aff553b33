import type { Knex } from 'knex';
import * as m0001 from './0001_core';
import * as m0002 from './0002_keys_idempotency_limits';
import * as m0003 from './0003_webhooks';
import * as m0004 from './0004_billing';
import * as m0005 from './0005_compliance';
import * as m0006 from './0006_calls';
import * as m0007 from './0007_inbound_calls';
import * as m0008 from './0008_backfill_signup_credit';
import * as m0009 from './0009_messages';
import * as m0010 from './0010_conversation_calls';
import * as m0011 from './0011_carrier_callback_signatures';
import * as m0012 from './0012_key_ancestry';
import * as m0014 from './0014_call_workflow_claims';
import * as m0015 from './0015_billing_environments';
import * as m0016 from './0016_idempotency_lease_token';
import * as m0017 from './0017_rate_limit_windows';
import * as m0018 from './0018_webhook_first_attempts';
import * as m0019 from './0019_ledger_postings';
import * as m0020 from './0020_deferred_playback_reports';
import * as m0021 from './0021_twilio_speeches';
import * as m0022 from './0022_twilio_relay_commands';
import * as m0023 from './0023_portal_accounts';
import * as m0024 from './0024_call_transfer_machine_detection';
import * as m0025 from './0025_carrier_create_attempts';
import * as m0026 from './0026_member_invitations';
import * as m0027 from './0027_payment_attempts_by_charge';
import * as m0030 from './0030_telnyx_inbox';
import * as m0031 from './0031_telnyx_speech';
import * as m0032 from './0032_number_choice';
import * as m0033 from './0033_provisioning_refusals';
import * as m0034 from './0034_account_verification';
import * as m0035 from './0035_two_factor';
import * as m0036 from './0036_keys_minted_by';
import * as m0037 from './0037_carrier_trust';
import * as m0040 from './0040_call_metadata';
import * as m0041 from './0041_tools';
import * as m0042 from './0042_oauth';
import * as m0043 from './0043_inbound_call_waits';
import * as m0044 from './0044_agent_lines';
import * as m0045 from './0045_portal_actions';
import * as m0046 from './0046_find_anything';
import * as m0047 from './0047_ringing_and_mcp_use';
import * as m0048 from './0048_calling_window';
import * as m0049 from './0049_campaigns';
import * as m0050 from './0050_campaign_answering_machines';
import * as m0051 from './0051_campaign_contact_lists';
import * as m0052 from './0052_campaign_events';
import * as m0053 from './0053_call_objects';
import * as m0054 from './0054_legal_holds';
import * as m0055 from './0055_carrier_deleted_recordings';
import * as m0057 from './0057_call_copy_failures';
import * as m0058 from './0058_contact_list_skips';
import * as m0059 from './0059_message_dispatch';
import * as m0060 from './0060_message_batches';
import * as m0061 from './0061_key_change_trigger';
import * as m0062 from './0062_key_caps_check_plan';

/**
 * Migrations are listed statically rather than discovered on disk, so the same list
 * works under tsx, ts-jest and a compiled build alike. Append new ones; never edit old ones.
 */
const migrations: Record<string, Knex.Migration> = {
  '0001_core': m0001,
  '0002_keys_idempotency_limits': m0002,
  '0003_webhooks': m0003,
  '0004_billing': m0004,
  '0005_compliance': m0005,
  '0006_calls': m0006,
  '0007_inbound_calls': m0007,
  '0008_backfill_signup_credit': m0008,
  '0009_messages': m0009,
  '0010_conversation_calls': m0010,
  '0011_carrier_callback_signatures': m0011,
  '0012_key_ancestry': m0012,
  '0014_call_workflow_claims': m0014,
  '0015_billing_environments': m0015,
  '0016_idempotency_lease_token': m0016,
  '0017_rate_limit_windows': m0017,
  '0018_webhook_first_attempts': m0018,
  '0019_ledger_postings': m0019,
  '0020_deferred_playback_reports': m0020,
  '0021_twilio_speeches': m0021,
  '0022_twilio_relay_commands': m0022,
  '0023_portal_accounts': m0023,
  '0024_call_transfer_machine_detection': m0024,
  '0025_carrier_create_attempts': m0025,
  '0026_member_invitations': m0026,
  '0027_payment_attempts_by_charge': m0027,
  '0030_telnyx_inbox': m0030,
  '0031_telnyx_speech': m0031,
  '0032_number_choice': m0032,
  '0033_provisioning_refusals': m0033,
  '0034_account_verification': m0034,
  '0035_two_factor': m0035,
  '0036_keys_minted_by': m0036,
  '0037_carrier_trust': m0037,
  '0040_call_metadata': m0040,
  '0041_tools': m0041,
  '0042_oauth': m0042,
  '0043_inbound_call_waits': m0043,
  '0044_agent_lines': m0044,
  '0045_portal_actions': m0045,
  '0046_find_anything': m0046,
  '0047_ringing_and_mcp_use': m0047,
  '0048_calling_window': m0048,
  '0049_campaigns': m0049,
  '0050_campaign_answering_machines': m0050,
  '0051_campaign_contact_lists': m0051,
  '0052_campaign_events': m0052,
  '0053_call_objects': m0053,
  '0054_legal_holds': m0054,
  '0055_carrier_deleted_recordings': m0055,
  '0057_call_copy_failures': m0057,
  '0058_contact_list_skips': m0058,
  '0059_message_dispatch': m0059,
  '0060_message_batches': m0060,
  '0061_key_change_trigger': m0061,
  '0062_key_caps_check_plan': m0062,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
