import { confirmation, type ConfirmationView } from '../components';
import type { Html } from '../html';
import { html } from '../html';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

/** A destructive action's own page: its question, what will happen and its button, or why there is nothing to do. */
export function confirmPage(nav: PageNav, view: ConfirmationView, error?: ShownError): Html {
  return layout(view.title, html`${errorBox(error)} ${confirmation(view)}`, nav);
}
