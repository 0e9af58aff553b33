/**
 * Every action an operator can take in the portal, by the route that takes it (issue 30, item 2): its name in the
 * audit log, the words the log shows, whether it belongs to one environment or to the whole workspace, and which
 * form fields describe it. Only fields named here are ever recorded: passwords, codes, card numbers, tokens and
 * CSRF values never are. test/unit/portalActionCatalog.test.ts checks that every portal form post is listed.
 */
export interface PortalActionKind {
  action: string;
  label: string;
  /** `workspace`: members, sign-ins, two-factor and passwords, shown in both environments' logs. */
  scope: 'environment' | 'workspace';
  /**
   * Form fields recorded as typed (trimmed, at most FIELD_MAX_LENGTH characters each); a name ending in `.` is a
   * group of checkboxes (`scope.calls:create`), recorded as the list of those checked.
   */
  fields?: readonly string[];
}

const env = (action: string, label: string, fields?: readonly string[]): PortalActionKind => ({
  action,
  label,
  scope: 'environment',
  fields,
});
const ws = (action: string, label: string, fields?: readonly string[]): PortalActionKind => ({ action, label, scope: 'workspace', fields });

/** By the route's path pattern, as registered on the portal's router. */
export const PORTAL_ACTIONS: Readonly<Record<string, PortalActionKind>> = {
  '/portal/signup': ws('account.signed_up', 'Signed up', ['workspace_name']),
  '/portal/login': ws('session.signed_in', 'Signed in'),
  '/portal/login/code': ws('session.second_factor', 'Gave the sign-in code'),
  '/portal/logout': ws('session.signed_out', 'Signed out'),
  '/portal/verify': ws('account.email_verified', 'Confirmed the email address'),
  '/portal/verify/resend': ws('account.verification_resent', 'Asked for a new confirmation link'),
  '/portal/password/forgot': ws('account.password_reset_requested', 'Asked for a password reset link'),
  '/portal/password/reset': ws('account.password_reset', 'Chose a new password with a reset link'),
  '/portal/settings/password': ws('account.password_changed', 'Changed the password'),
  '/portal/settings/time-zone': ws('settings.time_zone_changed', "Changed the workspace's time zone", ['time_zone']),
  '/portal/settings/calling-window': env('settings.calling_window_changed', 'Changed the calling hours', [
    'window',
    'start',
    'end',
    'day.',
  ]),
  '/portal/settings/legal-holds': env('recordings.legal_hold_placed', 'Placed a legal hold', ['call_id', 'phone_number', 'reason']),
  '/portal/settings/legal-holds/:id/release': env('recordings.legal_hold_released', 'Released a legal hold'),
  '/portal/security/two-factor': ws('two_factor.setup_started', 'Began setting up two-factor sign-in'),
  '/portal/security/two-factor/confirm': ws('two_factor.enabled', 'Turned on two-factor sign-in'),
  '/portal/security/two-factor/remove': ws('two_factor.disabled', 'Turned off two-factor sign-in'),
  '/portal/security/recovery-codes': ws('two_factor.recovery_codes_renewed', 'Made new recovery codes'),
  '/portal/security/require': ws('two_factor.requirement_changed', 'Changed the two-factor requirement', ['required']),
  '/portal/members/invite': ws('member.invited', 'Invited a member', ['email', 'role']),
  '/portal/members/:id/role': ws('member.role_changed', "Changed a member's role", ['role']),
  '/portal/members/:id/remove': ws('member.removed', 'Removed a member'),
  '/portal/invitations/:id/revoke': ws('invitation.revoked', 'Revoked an invitation'),
  '/portal/invite': ws('invitation.accepted', 'Accepted an invitation'),
  '/portal/lines': env('line.created', 'Created a line', [
    'name',
    'mode',
    'webhook_url',
    'number_source',
    'country',
    'area_code',
    'number_type',
    'phone_number',
  ]),
  '/portal/lines/:id': env('line.updated', 'Changed a line'),
  '/portal/lines/:id/rotate-secret': env('line.secret_rotated', "Rotated a line's signing secret"),
  '/portal/lines/:id/release': env('line.released', 'Released a line'),
  '/portal/lines/:id/test-event': env('line.test_event_sent', 'Sent a test event'),
  '/portal/lines/:id/calls': env('call.placed', 'Placed a test call', ['to_number']),
  '/portal/calls/:id/hangup': env('call.hung_up', 'Hung up a call'),
  // The contacts are not recorded: a list of people's numbers (and up to the API's body limit) is not an audit detail.
  '/portal/campaigns': env('campaign.created', 'Created a campaign', ['name', 'line.', 'topic', 'start_at', 'calls_per_minute']),
  '/portal/campaigns/:id/pause': env('campaign.paused', 'Paused a campaign'),
  '/portal/campaigns/:id/resume': env('campaign.resumed', 'Resumed a campaign'),
  '/portal/campaigns/:id/cancel': env('campaign.cancelled', 'Cancelled a campaign'),
  '/portal/deliveries/:id/redeliver': env('delivery.redelivered', 'Redelivered a webhook event'),
  '/portal/keys': env('service_key.minted', 'Minted a service key', ['name']),
  '/portal/keys/:id/revoke': env('service_key.revoked', 'Revoked a service key'),
  '/portal/api-keys': env('api_key.minted', 'Minted an API key', ['name', 'scope.']),
  '/portal/api-keys/delegated': env('api_key.delegated', 'Minted a delegated token', [
    'name',
    'parent_key_id',
    'scope.',
    'line.',
    'spend_limit_cents',
  ]),
  '/portal/api-keys/:id/revoke': env('api_key.revoked', 'Revoked an API key'),
  '/portal/compliance/opt-outs': env('compliance.opt_out_added', 'Added an opt-out', ['phone_number']),
  '/portal/compliance/opt-outs/remove': env('compliance.opt_out_removed', 'Removed an opt-out', ['phone_number', 'reason']),
  '/portal/compliance/consent': env('compliance.consent_granted', 'Recorded consent', [
    'phone_number',
    'consent_type',
    'line_id',
    'source',
  ]),
  '/portal/compliance/consent/revoke': env('compliance.consent_revoked', 'Revoked consent', ['phone_number', 'line_id']),
  '/portal/compliance/disclosures': env('compliance.disclosure_added', 'Added an AI disclosure', [
    'language',
    'jurisdiction',
    'is_default',
  ]),
  '/portal/billing/auto-charge': env('billing.auto_charge_changed', 'Changed auto-charge', ['enabled', 'threshold', 'amount']),
  '/portal/billing/card': env('billing.card_saved', 'Saved a card'),
  '/portal/oauth/consent': env('oauth.consent_answered', 'Answered an MCP connection request', ['decision']),
};

export const FIELD_MAX_LENGTH = 200;

/** The recorded name of a portal post no catalogue entry describes yet: still recorded, under its path. */
export function unlistedAction(routePath: string): PortalActionKind {
  return env(`portal.post ${routePath}`, `Posted ${routePath}`);
}

/** The words the audit page shows for a recorded action name (an unlisted one shows its own name). */
export function actionLabel(action: string): string {
  return LABELS.get(action) ?? action;
}
const LABELS = new Map(Object.values(PORTAL_ACTIONS).map((kind) => [kind.action, kind.label]));

export const PORTAL_ACTION_NAMES: readonly string[] = Object.values(PORTAL_ACTIONS)
  .map((kind) => kind.action)
  .sort();
