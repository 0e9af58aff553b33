import type { AppContext } from '../context';
import { ApiError } from '../errors';
import type { Html } from './html';
import type { ShownError } from './layout';
import { sendPage, wantsJson } from './http';
import { noteAction } from './actionLog';

/**
 * A refusal: the API's error envelope to a script asking for JSON, otherwise the page again with
 * the error on it, under the same status and code (e.g. 409 `email_taken`).
 */
export function refuse(ctx: AppContext, error: ApiError, page: (shown: ShownError) => Html): void {
  noteAction(ctx, { refusalCode: error.code });
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  if (wantsJson(ctx)) {
    ctx.status = error.status;
    ctx.body = error.toBody();
    return;
  }
  sendPage(ctx, error.status, page({ code: error.code, message: error.message, details: error.details }));
}

/** After a change, a browser goes to the page that shows it (POST, redirect, GET); a script gets `json`. */
export function changed(ctx: AppContext, location: string, status: number, json: unknown): void {
  if (wantsJson(ctx)) {
    ctx.status = status;
    ctx.body = json;
    return;
  }
  ctx.status = 303;
  ctx.redirect(location);
}
