import { LANGUAGES, LINE_MODES } from '../../../src/domain/lines/rules';
import { modesUsing, type ModeDependentField } from '../../../src/domain/lines/modeFields';
import { VOICES } from '../../../src/domain/voices/catalog';
import { option } from '../components';
import { LANGUAGE_LABELS, LINE_MODE_LABELS } from '../labels';
import { html, type Html } from '../html';

/**
 * The mode-aware fields of the line forms (create and edit, issue 30 item 4): each mode-dependent field is wrapped in
 * the modes that use it (`data-modes`), and /portal/assets/line-form.js hides (and disables) the others when the mode
 * changes. Without the script every field shows, and the server still takes only the chosen mode's.
 */

/** The mode select, offering every mode of LINE_MODES. */
export function modeSelect(id: string, current: string): Html {
  return html`<label for="${id}">Mode</label>
    <select id="${id}" name="mode" data-mode-select>
      ${LINE_MODES.map((mode) => option(mode, current, `${LINE_MODE_LABELS[mode].label}: ${LINE_MODE_LABELS[mode].meaning}`))}
    </select>`;
}

/** `content` shown only while the chosen mode uses `field`. */
export function forModes(field: ModeDependentField, content: Html): Html {
  return html`<div class="mode-field" data-modes="${modesUsing(field, LINE_MODES).join(' ')}">${content}</div>`;
}

/** The voice select: the catalog's voices (GET /api/v1/voices), or the default. */
export function voiceSelect(id: string, current: string): Html {
  return forModes(
    'voice',
    html`<label for="${id}">Voice</label>
      <select id="${id}" name="voice">
        ${option('', current, 'default')} ${VOICES.map((v) => option(v.slug, current, `${v.name} (${v.accent}, ${v.description})`))}
      </select>`,
  );
}

/** The language select (webhook and audio lines: a hosted line detects it). */
export function languageSelect(id: string, current: string): Html {
  return forModes(
    'language',
    html`<label for="${id}">Language</label>
      <select id="${id}" name="language">
        ${LANGUAGES.map((l) => option(l, current, LANGUAGE_LABELS[l]))}
      </select>`,
  );
}

/** The script that makes the form mode-aware (same origin: the CSP allows no inline script). */
export const LINE_FORM_SCRIPT = html`<script src="/portal/assets/line-form.js" defer></script>`;
