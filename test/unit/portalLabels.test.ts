import { PORTAL_ACTIONS } from '../../api/portal/actionCatalog';
import { stateBadge, stateLabel } from '../../api/portal/components';
import { choiceSelect } from '../../api/portal/filterFields';
import {
  ANSWERING_MACHINE_LABELS,
  BADGE_VOCABULARIES,
  CALL_DIRECTION_LABELS,
  CALL_STATUS_LABELS,
  CAMPAIGN_STATUS_LABELS,
  COMPLIANCE_EVENT_LABELS,
  CONTACT_OUTCOME_LABELS,
  CONTACT_STATUS_LABELS,
  CONSENT_TYPE_LABELS,
  COPY_FAILURE_REASON_LABELS,
  DELIVERY_STATUS_LABELS,
  DELIVERY_STATUSES,
  END_CAUSE_LABELS,
  ENVIRONMENT_LABELS,
  ENVIRONMENTS,
  EVENT_TYPE_LABELS,
  GRANT_STATE_LABELS,
  GRANT_STATES,
  LANGUAGE_LABELS,
  LINE_MODE_LABELS,
  LINE_STATUS_LABELS,
  MESSAGE_STATUS_LABELS,
  NUMBER_TYPE_LABELS,
  OPT_OUT_SOURCE_LABELS,
  PAUSED_REASON_LABELS,
  RECORDING_STORAGE_LABELS,
  ROLE_LABELS,
  SKIP_REASON_LABELS,
  SPEAKER_LABELS,
  SPEAKERS,
  TIMELINE_WORDS,
  TRANSACTION_TYPE_LABELS,
} from '../../api/portal/labels';
import { readableDetails } from '../../api/portal/pages/audit';
import { recordSchemas } from '../../api/openapi/records';
import { TRANSACTION_TYPES } from '../../src/domain/billing/ledger';
import { CALL_DIRECTIONS, CALL_STATUSES, END_CAUSES } from '../../src/domain/calls/rules';
import {
  ANSWERING_MACHINE_ACTIONS,
  CAMPAIGN_STATUSES,
  CONTACT_OUTCOMES,
  CONTACT_STATUSES,
  PAUSED_REASONS,
  SKIP_REASONS,
} from '../../src/domain/campaigns/rules';
import { CONSENT_TYPES } from '../../src/domain/compliance/consent';
import { OPT_OUT_SOURCES } from '../../src/domain/compliance/optOuts';
import { COMPLIANCE_EVENTS, KEY_LIFECYCLE_EVENTS, OAUTH_EVENTS } from '../../src/domain/compliance/events';
import { ROLES } from '../../src/domain/keys/scopes';
import { NUMBER_TYPES } from '../../src/domain/lines/numberChoice';
import { LANGUAGES, LINE_MODES, LINE_STATUSES } from '../../src/domain/lines/rules';
import { MESSAGE_STATUSES } from '../../src/domain/messages/rules';
import { EVENT_TYPES } from '../../src/domain/webhooks/events';
import { COPY_FAILURE_REASONS, RECORDING_STORAGE_STATES } from '../../src/domain/recordings/rules';

type Words = string | { label: string };

/**
 * Issue 30, item 7: every value of every vocabulary the portal shows has words of its own, so a value added to the
 * domain cannot reach a page raw. Each row: the domain's own list of values, and the portal's mapping of it.
 */
const VOCABULARIES: Array<[string, readonly string[], Readonly<Record<string, Words>>]> = [
  ['call statuses', CALL_STATUSES, CALL_STATUS_LABELS],
  ['call directions', CALL_DIRECTIONS, CALL_DIRECTION_LABELS],
  ['end causes', END_CAUSES, END_CAUSE_LABELS],
  ['line statuses', LINE_STATUSES, LINE_STATUS_LABELS],
  ['line modes', LINE_MODES, LINE_MODE_LABELS],
  ['languages', LANGUAGES, LANGUAGE_LABELS],
  ['number types', NUMBER_TYPES, NUMBER_TYPE_LABELS],
  ['message statuses', MESSAGE_STATUSES, MESSAGE_STATUS_LABELS],
  ['consent types', CONSENT_TYPES, CONSENT_TYPE_LABELS],
  ['opt-out sources', OPT_OUT_SOURCES, OPT_OUT_SOURCE_LABELS],
  ['key and consent states', GRANT_STATES, GRANT_STATE_LABELS],
  ['member roles', ROLES, ROLE_LABELS],
  ['webhook event types', EVENT_TYPES, EVENT_TYPE_LABELS],
  ['delivery statuses', DELIVERY_STATUSES, DELIVERY_STATUS_LABELS],
  ['compliance event types', [...COMPLIANCE_EVENTS, ...KEY_LIFECYCLE_EVENTS, ...OAUTH_EVENTS], COMPLIANCE_EVENT_LABELS],
  ['ledger transaction types', TRANSACTION_TYPES, TRANSACTION_TYPE_LABELS],
  ['environments', ENVIRONMENTS, ENVIRONMENT_LABELS],
  ['transcript speakers', SPEAKERS, SPEAKER_LABELS],
  ['campaign statuses', CAMPAIGN_STATUSES, CAMPAIGN_STATUS_LABELS],
  ['campaign contact statuses', CONTACT_STATUSES, CONTACT_STATUS_LABELS],
  ['campaign contact outcomes', CONTACT_OUTCOMES, CONTACT_OUTCOME_LABELS],
  ['campaign skip reasons', SKIP_REASONS, SKIP_REASON_LABELS],
  ['campaign paused reasons', PAUSED_REASONS, PAUSED_REASON_LABELS],
  ['campaign answering-machine actions', ANSWERING_MACHINE_ACTIONS, ANSWERING_MACHINE_LABELS],
  ['recording storage states', RECORDING_STORAGE_STATES, RECORDING_STORAGE_LABELS],
  ['recording copy failure reasons', COPY_FAILURE_REASONS, COPY_FAILURE_REASON_LABELS],
  [
    'portal actions (audit log)',
    Object.values(PORTAL_ACTIONS).map((kind) => kind.action),
    Object.fromEntries(Object.values(PORTAL_ACTIONS).map((kind) => [kind.action, kind.label])),
  ],
];

const wordsOf = (words: Words | undefined): string | undefined => (typeof words === 'object' ? words.label : words);

describe('portal labels (api/portal/labels.ts)', () => {
  it.each(VOCABULARIES)('gives every value of the %s words of its own, and lists no value the domain lacks', (_name, values, labels) => {
    const missing = values.filter((value) => !Object.prototype.hasOwnProperty.call(labels, value));
    const raw = values.filter((value) => {
      const shown = wordsOf(labels[value]) ?? '';
      // Words: not the value itself, no identifier punctuation, starting with a capital letter.
      return shown === value || /[_.]/.test(shown) || !/^[A-Z]/.test(shown);
    });
    const stale = Object.keys(labels).filter((value) => !values.includes(value));
    expect({ missing, raw, stale }).toEqual({ missing: [], raw: [], stale: [] });
  });

  it('keeps the delivery statuses the API documents (the filter offers exactly those)', () => {
    const schema = recordSchemas.WebhookDelivery as { properties: { status: { enum: string[] } } };
    expect([...DELIVERY_STATUSES].sort()).toEqual([...schema.properties.status.enum].sort());
  });

  it('means one thing by one value on every badge (a value shared by vocabularies has the same words and colour)', () => {
    const seen = new Map<string, string>();
    const conflicts: string[] = [];
    for (const vocabulary of BADGE_VOCABULARIES)
      for (const [value, words] of Object.entries(vocabulary)) {
        const shown = `${words.label} (${words.tone})`;
        if (seen.has(value) && seen.get(value) !== shown) conflicts.push(`${value}: ${seen.get(value)} / ${shown}`);
        seen.set(value, shown);
      }
    expect(conflicts).toEqual([]);
    for (const vocabulary of BADGE_VOCABULARIES)
      for (const [value, words] of Object.entries(vocabulary)) expect(stateLabel(value)).toBe(words.label);
    expect(stateBadge('success').toString()).toBe('<span class="badge badge-ok" data-state="success" title="success">Delivered</span>');
  });

  it("offers a filter's values by their words, the value kept as the option's value", () => {
    const select = choiceSelect('event_type', 'Event type', EVENT_TYPES, EVENT_TYPE_LABELS, 'call_started').value;
    expect(select).toContain('<option value="call_started" selected>Call started</option>');
    expect(select).toContain('<option value="test" >Test event</option>');
    // Between the tags only words: no option shows its enum value.
    const shown = [...select.matchAll(/>([^<]*)<\/option>/g)].map((match) => match[1]);
    expect(shown.filter((text) => /_/.test(text) || (EVENT_TYPES as readonly string[]).includes(text))).toEqual([]);
  });

  it("tells a call's story in the same words (the timeline's event types, end causes and statuses)", () => {
    expect(TIMELINE_WORDS.eventType('call_missed')).toBe('Call missed (line busy)');
    expect(TIMELINE_WORDS.endCause('api_hangup')).toBe('Hung up by the API or portal');
    expect(TIMELINE_WORDS.callStatus('no_answer')).toBe('No answer');
    // A value stored before a vocabulary dropped it still reads as words.
    expect(TIMELINE_WORDS.endCause('some_retired_cause')).toBe('Some retired cause');
  });

  it("shows an audit entry's recorded values by their words (a line's mode, a member's role, a consent's type)", () => {
    const shown = (
      readableDetails({ mode: 'webhook', role: 'admin', consent_type: 'explicit_outbound', name: 'admin' }) as { value: string }
    ).value;
    expect(shown).toContain('<span class="audit-detail-name">mode:</span> Webhook');
    expect(shown).toContain('<span class="audit-detail-name">role:</span> Admin');
    expect(shown).toContain('<span class="audit-detail-name">consent type:</span> Explicit (for outbound calls and texts)');
    const optOut = (readableDetails({ source: 'sms_keyword' }) as { value: string }).value;
    expect(optOut).toContain('<span class="audit-detail-name">source:</span> Texted STOP');
    // A free-text field is shown as typed, even when it happens to spell a value.
    expect(shown).toContain('<span class="audit-detail-name">name:</span> admin');
  });
});
