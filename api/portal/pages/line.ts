import type { toLineRecord } from '../../../src/domain/lines/store';
import { LANGUAGES, LINE_MODES } from '../../../src/domain/lines/rules';
import { VOICES } from '../../../src/domain/voices/catalog';
import { html, type Html } from '../html';
import { envFields, hiddenFields, option, stateBadge, stateLabel } from '../components';
import { formOutcome, layout, type PageNav, type ShownError } from '../layout';

type LineRecord = ReturnType<typeof toLineRecord>;

export interface LinePageInput {
  line: LineRecord;
  mayEdit: boolean;
  mayCall: boolean;
  /** A fresh Idempotency-Key for the test call form: submitting the same form twice places one call. */
  callKey: string;
  error?: ShownError;
  notice?: string;
  /** What was typed in the edit form, shown again with its error. */
  form?: Record<string, string>;
  /** What was typed in the test call form, shown again with its error. */
  callForm?: Record<string, string>;
}

/** One line: its settings, the form that changes them (the fields of PATCH /api/v1/lines/{id}) and a test call from it. */
export function linePage(nav: PageNav, input: LinePageInput): Html {
  const { line } = input;
  return layout(
    `Line ${line.name}`,
    html`${formOutcome(input.error, input.notice)}
      <dl class="stats">
        <div>
          <dt>Number</dt>
          <dd class="mono" data-line-number>${line.phone_number ?? '—'}</dd>
        </div>
        <div>
          <dt>Mode</dt>
          <dd>${line.mode}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd data-line-status>${stateBadge(line.status)}</dd>
        </div>
        <div>
          <dt>Language</dt>
          <dd>${line.language}</dd>
        </div>
      </dl>
      <p>
        <a href="/portal/calls?env=${nav.environment}&amp;line_id=${line.id}">Calls of this line</a> ·
        <a href="/portal/lines?env=${nav.environment}">All lines</a>
      </p>
      ${testCallForm(nav, input)} ${editForm(nav, input)}`,
    nav,
  );
}

function testCallForm(nav: PageNav, input: LinePageInput): Html {
  const { line } = input;
  if (!input.mayCall) return html`<p>Your role cannot place calls.</p>`;
  if (line.status !== 'active')
    return html`<p id="no-test-call">Test calls need an active line; this one is ${stateLabel(line.status).toLowerCase()}.</p>`;
  return html`<h2>Place a test call</h2>
    <form method="post" action="/portal/lines/${line.id}/calls" class="card" aria-label="Place a test call">
      ${hiddenFields(envFields(nav))}
      <input type="hidden" name="idempotency_key" value="${input.callForm?.idempotency_key ?? input.callKey}" />
      <p>From <span class="mono">${line.phone_number}</span>. Billed, held and checked like any call of the API.</p>
      <label for="to_number">To (E.164)</label>
      <input
        id="to_number"
        name="to_number"
        type="tel"
        required
        maxlength="32"
        placeholder="+14155550123"
        value="${input.callForm?.to_number ?? ''}"
      />
      <button type="submit">Place test call</button>
    </form>`;
}

const text = (form: Record<string, string> | undefined, field: string, current: unknown) =>
  form ? (form[field] ?? '') : current === null || current === undefined ? '' : String(current);

function editForm(nav: PageNav, input: LinePageInput): Html {
  const { line, form } = input;
  if (!input.mayEdit) return html`<p>Your role cannot change lines.</p>`;
  if (line.status === 'released') return html`<p>This line is released; it cannot be changed.</p>`;
  const mode = text(form, 'mode', line.mode);
  const language = text(form, 'language', line.language);
  const voice = text(form, 'voice', line.voice);
  const checked = (field: 'recording_enabled' | 'compliance_enabled') => ((form ? form[field] === 'on' : line[field]) ? html`checked` : '');
  const field = (name: string, label: string, type = 'text') =>
    html`<label for="edit-${name}">${label}</label>
      <input id="edit-${name}" name="${name}" type="${type}" value="${text(form, name, line[name as keyof LineRecord])}" />`;
  return html`<h2>Edit line</h2>
    <form method="post" action="/portal/lines/${line.id}" class="card" aria-label="Edit line">
      ${hiddenFields(envFields(nav))} ${field('name', 'Name')} ${field('display_name', 'Display name (caller ID name)')}
      <label for="edit-mode">Mode</label>
      <select id="edit-mode" name="mode">
        ${LINE_MODES.map((m) => option(m, mode))}
      </select>
      <label for="edit-system_prompt">System prompt (hosted lines)</label>
      <textarea id="edit-system_prompt" name="system_prompt" rows="4">${text(form, 'system_prompt', line.system_prompt)}</textarea>
      ${field('begin_message', 'Begin message')}
      <label for="edit-voice">Voice</label>
      <select id="edit-voice" name="voice">
        ${option('', voice, 'default')} ${VOICES.map((v) => option(v.slug, voice, `${v.name} (${v.accent})`))}
      </select>
      ${field('webhook_url', 'Webhook URL (webhook lines)', 'url')}
      ${field('audio_handler_url', 'Audio handler URL (audio lines, ws or wss)')}
      ${field('status_callback_url', 'Status callback URL', 'url')}
      <label for="edit-language">Language (webhook and audio lines)</label>
      <select id="edit-language" name="language">
        ${LANGUAGES.map((l) => option(l, language))}
      </select>
      ${field('context_limit', 'Context limit (turns, 1-500)')} ${field('endpointing_ms', 'Endpointing (ms, 100-2000)')}
      <label><input type="checkbox" name="recording_enabled" ${checked('recording_enabled')} /> Record calls</label>
      <label><input type="checkbox" name="compliance_enabled" ${checked('compliance_enabled')} /> Check consent before calling</label>
      <button type="submit">Save line</button>
    </form>`;
}
