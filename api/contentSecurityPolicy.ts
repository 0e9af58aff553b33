/**
 * The Content-Security-Policy of the pages this process serves (the portal, the API reference at
 * /docs): scripts, requests and form posts to this origin only; never framed, no `<base>`, no plugins.
 * `sources` are a page's own directives for styles, images and fonts, placed after `script-src`.
 */
export function pageContentSecurityPolicy(sources: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    ...sources,
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}
