/**
 * AI disclosures: what a compliance-enabled line plays at the start of a call. They belong to the
 * workspace (per environment); each language has at most one default, the one that is played.
 */
import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import type { Environment } from '../keys/format';
import { LANGUAGES } from '../lines/rules';
import { attributionMetadata, recordComplianceEvent, type PortalAttribution } from './events';

/** A disclosure's languages (a line's, without `multi`: a disclosure is spoken in one) and field limits, for the API and the portal. */
export const DISCLOSURE_LANGUAGES: readonly string[] = LANGUAGES.filter((language) => language !== 'multi');
export const DISCLOSURE_LIMITS = { messageMaxLength: 2000, jurisdictionMinLength: 2, jurisdictionMaxLength: 16 } as const;

export interface DisclosureRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  message: string;
  language: string;
  jurisdiction: string;
  is_default: boolean;
  audio_url: string | null;
  created_at: Date;
}

export const toDisclosureRecord = (row: DisclosureRow) => ({
  id: row.id,
  message: row.message,
  audio_url: row.audio_url,
  language: row.language,
  jurisdiction: row.jurisdiction,
  is_default: row.is_default,
  created_at: row.created_at.toISOString(),
});

export function disclosuresOf(db: Db | Knex.Transaction, tenant: { workspaceId: string; environment: Environment }) {
  return db<DisclosureRow>('disclosures').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}

/**
 * The disclosure a call on a compliance-enabled line plays: the workspace's default in the line's language (English
 * for `multi`), falling back to the English default; null when there is neither.
 */
export async function disclosurePlayedIn(
  db: Db | Knex.Transaction,
  line: { workspace_id: string; environment: string; language: string },
): Promise<{ id: string; message: string } | null> {
  const language = line.language === 'multi' ? 'en' : line.language;
  const played: { id: string; message: string } | undefined = await db('disclosures')
    .where({ workspace_id: line.workspace_id, environment: line.environment, is_default: true })
    .whereIn('language', [language, 'en'])
    .orderByRaw('case when language = ? then 0 else 1 end', [language])
    .first('id', 'message');
  return played ?? null;
}

/**
 * Adds a disclosure. The first of a language is its default; a new default replaces the old one
 * and is a `disclosure_default_changed` compliance event, committed with it.
 */
export async function addDisclosure(
  db: Db,
  author: { workspaceId: string; environment: Environment; keyId: string | null; by?: PortalAttribution },
  disclosure: { message: string; language?: string; jurisdiction?: string; is_default?: boolean },
  now: Date,
): Promise<DisclosureRow> {
  const language = disclosure.language ?? 'en';
  return db.transaction(async (trx) => {
    const hasDefault = await disclosuresOf(trx, author).andWhere({ language, is_default: true }).forUpdate().first('id');
    const isDefault = disclosure.is_default ?? !hasDefault;
    if (isDefault && hasDefault) await trx('disclosures').where({ id: hasDefault.id }).update({ is_default: false });
    const [inserted] = await trx<DisclosureRow>('disclosures')
      .insert({
        workspace_id: author.workspaceId,
        environment: author.environment,
        message: disclosure.message,
        language,
        jurisdiction: disclosure.jurisdiction ?? 'US',
        is_default: isDefault,
        created_at: now,
      })
      .returning('*');
    if (isDefault) {
      await recordComplianceEvent(trx, {
        workspaceId: author.workspaceId,
        environment: author.environment,
        eventType: 'disclosure_default_changed',
        actorKeyId: author.keyId,
        metadata: {
          language,
          disclosure_id: inserted.id,
          previous_disclosure_id: hasDefault?.id ?? null,
          ...attributionMetadata(author.by),
        },
        at: now,
      });
    }
    return inserted;
  });
}
