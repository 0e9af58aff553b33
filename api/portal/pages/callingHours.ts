import { CALLING_DAYS, type CallingDay, type WorkspaceCallingWindow } from '../../../src/domain/callingHours/rules';
import { hiddenFields, envFields } from '../components';
import { html, type Html } from '../html';
import type { PageNav } from '../layout';

const DAY_NAMES: Record<CallingDay, string> = {
  sun: 'Sunday',
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
};

/** A window in words: "09:00–20:00 on Monday, Tuesday…", or the legal window alone. */
export function callingWindowText(window: WorkspaceCallingWindow | null): string {
  if (!window) return 'the legal window only (08:00–21:00, and stricter national and state rules)';
  const days = window.days.length === 7 ? 'every day' : `on ${window.days.map((day) => DAY_NAMES[day]).join(', ')}`;
  return `${window.start}–${window.end} ${days}, within the legal window`;
}

/**
 * The environment's calling hours (settings `calling_window`): owners and admins narrow the legal
 * window or go back to it; everyone reads it. `form` is what was typed when a change was refused.
 */
export function callingHoursSection(nav: PageNav, window: WorkspaceCallingWindow | null, form: Record<string, string> | undefined): Html {
  const explained = html`<p>
    Calls are placed only within the calling window at the callee’s local time, read from their number: 08:00 to 21:00 (the US federal
    rule), the stricter rules of the callee’s country and state on top, and the hours set here, which can only narrow it. Outside it a call
    is refused with
    <code>outside_calling_hours</code> and the time the window opens next. In the ${nav.environment} environment:
    <strong id="calling-window">${callingWindowText(window)}</strong>.
  </p>`;
  if (!nav.managesMembers)
    return html`<h2>Calling hours</h2>
      ${explained}
      <p>Owners and admins change them.</p>`;
  const own = form ? form.window === 'own' : window !== null;
  const start = form?.start ?? window?.start ?? '09:00';
  const end = form?.end ?? window?.end ?? '20:00';
  const ticked = (day: CallingDay) => (form ? Boolean(form[`day.${day}`]) : (window?.days ?? CALLING_DAYS.slice(1, 6)).includes(day));
  return html`<h2>Calling hours</h2>
    ${explained}
    <form method="post" action="/portal/settings/calling-window" class="card" id="calling-hours">
      ${hiddenFields(envFields(nav))}
      <fieldset>
        <legend>Window</legend>
        <label class="check"><input type="radio" name="window" value="legal" ${own ? '' : html`checked`} /> The legal window only</label>
        <label class="check"><input type="radio" name="window" value="own" ${own ? html`checked` : ''} /> Narrower hours of my own</label>
        <p>The hours and days below apply to narrower hours; they are kept only when those are chosen.</p>
      </fieldset>
      <label for="calling-start">From (callee-local, 08:00 or later)</label>
      <input id="calling-start" name="start" type="time" min="08:00" max="21:00" step="60" value="${start}" />
      <label for="calling-end">Until (21:00 at the latest)</label>
      <input id="calling-end" name="end" type="time" min="08:00" max="21:00" step="60" value="${end}" />
      <fieldset>
        <legend>Days</legend>
        ${CALLING_DAYS.map(
          (day) =>
            html`<label class="check"
              ><input type="checkbox" name="day.${day}" value="on" ${ticked(day) ? html`checked` : ''} /> ${DAY_NAMES[day]}</label
            >`,
        )}
      </fieldset>
      <button type="submit">Save calling hours</button>
    </form>`;
}

/** The settings change a submitted form asks for: null (the legal window) or the window typed. */
export function callingWindowOfForm(form: Record<string, string>): WorkspaceCallingWindow | null {
  if (form.window !== 'own') return null;
  return {
    start: (form.start ?? '').trim(),
    end: (form.end ?? '').trim(),
    days: CALLING_DAYS.filter((day) => Boolean(form[`day.${day}`])),
  };
}
