/** What a portal form post's audit record knows so far (api/portal/actionLog.ts fills and writes it). */
export interface NotedAction {
  /** The person who acted, when no session named them before the request (a sign-in, an accepted invitation). */
  userId?: string;
  /** The object acted on, when the path does not name it (the line a creation made, the call a test call placed). */
  targetId?: string;
  details?: Record<string, string | number | boolean>;
  /** The post only showed its confirmation step (api/portal/confirm.ts): nothing was done, nothing is recorded. */
  confirmationOnly?: boolean;
  /** Set when the form proved it came from the portal (its CSRF token checked out). */
  formTrusted?: boolean;
  /** The refusal's error code, when the answer refused the action. */
  refusalCode?: string;
  /** The signed-in operator the request came with (the visitor's session). */
  operator?: { userId: string; workspaceId: string; email: string };
  /** The form as posted (read once by readForm). */
  form?: Record<string, string>;
}
