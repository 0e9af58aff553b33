import type { toLineRecord } from '../../../src/domain/lines/store';
import { html, type Html } from '../html';
import { confirmLink, envFields, hiddenFields, stateBadge, stateLabel } from '../components';
import { LANGUAGE_LABELS, LINE_MODE_LABELS, labelOf } from '../labels';
import { forModes, languageSelect, LINE_FORM_SCRIPT, modeSelect, voiceSelect } from './lineFields';
import { formOutcome, layout, type PageNav, type ShownError } from '../layout';

type LineRecord = ReturnType<typeof toLineRecord>;

/** The columns of a test event's delivery attempt the page shows. */
export interface TestDelivery {
  id: string;
  status: string;
  url: string;
  http_status: number | null;
  duration_ms: number | null;
  error_message: string | null;
}

export interface LinePageInput {
  line: LineRecord;
  mayEdit: boolean;
  mayCall: boolean;
  /** May release the line (numbers:release) and send it test events (webhooks:write). */
  mayRelease: boolean;
  mayTest: boolean;
  /** Where a test event goes: the line's webhook URL, else the workspace's default one; null when nowhere. */
  testDestination: string | null;
  /** The test event just sent and its one attempt, when this page answers sending it. */
  testResult?: { eventId: string; finished: boolean; delivery: TestDelivery | undefined };
  /** What was typed in the test event form (nothing: it has only its hidden fields). */
  testForm?: Record<string, string>;
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
          <dd data-line-mode="${line.mode}">${labelOf(LINE_MODE_LABELS, line.mode)}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd data-line-status>${stateBadge(line.status)}</dd>
        </div>
        <div>
          <dt>Language</dt>
          <dd data-line-language="${line.language}">${labelOf(LANGUAGE_LABELS, line.language)}</dd>
        </div>
      </dl>
      <p>
        <a href="/portal/calls?env=${nav.environment}&amp;line_id=${line.id}">Calls of this line</a> ·
        <a href="/portal/lines?env=${nav.environment}">All lines</a>
      </p>
      ${testCallForm(nav, input)} ${testEventSection(nav, input)} ${editForm(nav, input)} ${releaseSection(nav, input)}`,
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

/** "Send test event" (POST /api/v1/webhooks/test's use case) next to where it goes, and the last one's result. */
function testEventSection(nav: PageNav, input: LinePageInput): Html {
  const { line } = input;
  if (!input.mayTest || line.status === 'released') return html``;
  const heading = html`<h2 id="test-event-title">Test the webhook</h2>`;
  if (!input.testDestination)
    return html`${heading}
      <p id="no-test-destination">
        This line has no webhook URL (and the workspace no default one): there is nowhere to send a test event.
      </p>`;
  return html`${heading} ${input.testResult ? testResultBox(input.testResult) : ''}
    <form method="post" action="/portal/lines/${line.id}/test-event" class="card" aria-labelledby="test-event-title">
      ${hiddenFields(envFields(nav))}
      <p>
        Sends a signed <code>test</code> event to <span class="mono">${input.testDestination}</span> once (no retries) and shows its answer.
      </p>
      <button type="submit" id="send-test-event">Send test event</button>
    </form>`;
}

function testResultBox(result: NonNullable<LinePageInput['testResult']>): Html {
  const { delivery } = result;
  if (!delivery || !result.finished)
    return html`<p class="notice" role="status" id="test-event-result">
      Test event sent; its receiver has not answered yet. Its attempt finishes on its own: see the
      ${delivery ? html`<a href="/portal/deliveries/${delivery.id}">delivery</a>` : 'deliveries'}.
    </p>`;
  const took = delivery.duration_ms === null ? '' : ` in ${delivery.duration_ms} ms`;
  const answer = delivery.http_status === null ? (delivery.error_message ?? 'no answer') : `HTTP ${delivery.http_status}${took}`;
  const ok = delivery.status === 'success';
  return html`<div
    class="${ok ? 'notice' : 'error'}"
    role="${ok ? 'status' : 'alert'}"
    id="test-event-result"
    data-test-status="${delivery.status}"
  >
    <p>
      ${ok ? 'Test event delivered' : 'Test event failed'}:
      ${answer}${!ok && delivery.http_status !== null && delivery.error_message ? ` (${delivery.error_message})` : ''}.
    </p>
    <p><a href="/portal/deliveries/${delivery.id}">Open the delivery</a> (request, response and signature).</p>
  </div>`;
}

/** Releasing the line: a link to its confirmation step, which says what happens to the number and its calls. */
function releaseSection(nav: PageNav, input: LinePageInput): Html {
  const { line } = input;
  if (line.status === 'released') return html`<p id="line-released">This line is released: its calls and deliveries stay readable.</p>`;
  if (!input.mayRelease) return html``;
  return html`<h2>Release this line</h2>
    <p>Gives its number up and ends its calls; its history stays readable.</p>
    ${confirmLink(`/portal/lines/${line.id}/release?env=${nav.environment}`, 'Release line…', { id: 'release-line' })}`;
}

const text = (form: Record<string, string> | undefined, field: string, current: unknown) =>
  form ? (form[field] ?? '') : current === null || current === undefined ? '' : String(current);

function editForm(nav: PageNav, input: LinePageInput): Html {
  const { line, form } = input;
  if (!input.mayEdit) return html`<p>Your role cannot change lines.</p>`;
  if (line.status === 'released') return html`<p>This line is released; it cannot be changed.</p>`;
  const mode = text(form, 'mode', line.mode);
  const checked = (field: 'recording_enabled' | 'compliance_enabled') => ((form ? form[field] === 'on' : line[field]) ? html`checked` : '');
  const field = (name: string, label: string, type = 'text') =>
    html`<label for="edit-${name}">${label}</label>
      <input id="edit-${name}" name="${name}" type="${type}" value="${text(form, name, line[name as keyof LineRecord])}" />`;
  return html`<h2>Edit line</h2>
    <form method="post" action="/portal/lines/${line.id}" class="card" aria-label="Edit line" data-mode-form>
      ${hiddenFields(envFields(nav))} ${field('name', 'Name')} ${field('display_name', 'Display name (caller ID name)')}
      ${modeSelect('edit-mode', mode)}
      ${forModes(
        'system_prompt',
        html`<label for="edit-system_prompt">System prompt</label>
          <textarea id="edit-system_prompt" name="system_prompt" rows="4">${text(form, 'system_prompt', line.system_prompt)}</textarea>`,
      )}
      ${forModes('webhook_url', field('webhook_url', 'Webhook URL', 'url'))}
      ${forModes('audio_handler_url', field('audio_handler_url', 'Audio handler URL (ws or wss)'))}
      ${forModes('begin_message', field('begin_message', 'Begin message (spoken when the call is answered)'))}
      ${voiceSelect('edit-voice', text(form, 'voice', line.voice))}
      ${languageSelect('edit-language', text(form, 'language', line.language))}
      ${forModes('context_limit', field('context_limit', 'Context limit (turns, 1-500)'))}
      ${forModes('endpointing_ms', field('endpointing_ms', 'Endpointing (ms, 100-2000)'))}
      ${field('status_callback_url', 'Status callback URL', 'url')}
      <label><input type="checkbox" name="recording_enabled" ${checked('recording_enabled')} /> Record calls</label>
      <label><input type="checkbox" name="compliance_enabled" ${checked('compliance_enabled')} /> Check consent before calling</label>
      <button type="submit">Save line</button>
    </form>
    ${LINE_FORM_SCRIPT}`;
}
