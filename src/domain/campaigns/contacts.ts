import { toE164 } from '../../platform/phone';
import type { SkipReason } from './rules';

/** A contact as the customer gives it (a JSON list's item, a CSV list's row). */
export interface NewCampaignContact {
  toNumber: string;
  variables?: Record<string, string>;
  metadata?: Record<string, string>;
}

/** A contact ready to record: numbered in list order from 1, its number in E.164 when it is one. */
export interface PreparedContact {
  row: number;
  toNumber: string;
  variables: Record<string, string> | null;
  metadata: Record<string, string> | null;
  skip: SkipReason | null;
}

/**
 * The contacts in list order with why each is skipped before any dial: a number that is not a phone number
 * (`invalid_number`, kept as written), or one already earlier in the list (`duplicate_number`: nobody is called
 * twice by one campaign). Their other refusals come at their dial.
 */
export function prepareContacts(contacts: readonly NewCampaignContact[]): PreparedContact[] {
  const seen = new Set<string>();
  return contacts.map((contact, index) => {
    const e164 = toE164(contact.toNumber);
    const skip: SkipReason | null = !e164 ? 'invalid_number' : seen.has(e164) ? 'duplicate_number' : null;
    if (e164) seen.add(e164);
    return {
      row: index + 1,
      toNumber: e164 ?? contact.toNumber,
      variables: contact.variables && Object.keys(contact.variables).length > 0 ? contact.variables : null,
      metadata: contact.metadata && Object.keys(contact.metadata).length > 0 ? contact.metadata : null,
      skip,
    };
  });
}

/** How many prepared contacts will be skipped for each reason found before any dial (a contact list's `skipped`). */
export function countUploadSkips(contacts: readonly PreparedContact[]): { invalidNumber: number; duplicateNumber: number } {
  let invalidNumber = 0;
  let duplicateNumber = 0;
  for (const { skip } of contacts) {
    if (skip === 'invalid_number') invalidNumber += 1;
    else if (skip === 'duplicate_number') duplicateNumber += 1;
  }
  return { invalidNumber, duplicateNumber };
}
