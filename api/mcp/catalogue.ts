import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/**
 * What an agent is told about each MCP tool beside its operation's schemas (api/mcp/tools.ts derives
 * the rest from the route table): a title, hints, when to use it, what its refusals mean, and the
 * name and meaning of each argument. Argument names are the API's snake_case ones; a route whose
 * path parameters are named otherwise (`getConversation`'s `lineId`) is mapped in `rename`.
 */
export interface ToolSpec {
  name: string;
  /** The route whose chain answers the tool (and whose scope and tier decide who sees it). */
  operationId: string;
  title: string;
  annotations: ToolAnnotations;
  /** What it does and when to use it, in words a model acts on. */
  use: string;
  /** Refusal codes worth explaining for this tool (see REFUSALS), beyond those every tool shares. */
  refusals?: readonly (keyof typeof REFUSALS)[];
  /** This tool's words for a refusal whose shared words (REFUSALS) are about another resource (`not_found` of a campaign). */
  refusalWords?: Partial<Record<keyof typeof REFUSALS, string>>;
  /** Tool argument → the route's parameter name, where they differ. */
  rename?: Record<string, string>;
  /** Descriptions of this tool's arguments where the shared ones (ARGUMENTS) do not fit, e.g. which resource `id` is. */
  arguments?: Record<string, string>;
  /** Refused to keys held to particular lines (`isWorkspaceWideKey`, api/lineAccess.ts): hidden from them. */
  workspaceWide?: true;
}

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
/** Acts on the phone network (a person hears or receives it), once per call. */
const OUTWARD: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
export const CALL_ID = "The call's id (`id` of a call from place_call, list_calls or wait_for_call)";

/** What each refusal means, for the agent's next step. */
export const REFUSALS = {
  call_not_active:
    'the call is not in progress (still ringing, or ended): check get_call, and use follow_call or wait a moment if it is ringing',
  call_not_found: 'no call with this id is visible to you: check the id (list_calls)',
  wait_in_progress: 'another request is already waiting for what the caller says next: let it finish, one wait at a time',
  not_found: 'no such line is visible to you: check the id (list_lines)',
  call_in_progress: 'the line is already on a call: wait for it to end (follow_call) or hang it up first',
  line_not_active: 'the line is still being provisioned or is released: check get_line',
  line_released: 'the line is released and receives no calls: use another line',
  line_no_webhook: 'the line has no webhook_url to hand the call to: set one, or place a hosted call',
  number_opted_out: 'the person asked not to be contacted on this number: do not retry',
  consent_required: 'this line records consent and the number has none: ask the account owner to record consent first',
  m3_fraud_block: 'the destination is blocked as a fraud risk: do not retry',
  outside_calling_hours:
    "it is outside calling hours at the callee's local time: do not retry now; place the call at or after details' next_open_at",
  calling_window_never_opens:
    "the workspace's calling hours never overlap the legal hours at the callee's local time: do not retry; tell the account owner",
  insufficient_credits: 'the balance is too low: tell the account owner (get_balance)',
  agent_cap_exceeded: "your key's monthly spend cap is reached: tell the account owner; it resets at the date in details",
  conversation_window_expired: 'the person has not written in 24 hours: only a call, or a text after they write, can reach them',
  carrier_error: 'the phone carrier refused it (details name the provider and its code): retrying unchanged gets the same answer',
  number_unavailable: 'no number as asked is available: try another area_code or number_type, or none',
  transfer_not_supported: 'audio-mode calls cannot be transferred',
  transfer_zone_not_allowed: 'the destination costs more than this call allows: choose a number in the same zone',
  idempotency_key_reused: 'this idempotency_key was used for a different request: use a fresh one',
  campaign_ended: 'the campaign has already completed or been cancelled: nothing is left to pause, resume or cancel',
} as const;

/** Refusals any tool may answer; said once in the server's instructions, not per tool. */
export const COMMON_REFUSALS =
  'Every refusal is a tool error whose text is {"error": {"code", "message", "details"}}. Any tool may answer: ' +
  '`validation_error` (an argument is wrong; details name it: fix it and retry), `agent_permission_denied` or `forbidden` ' +
  '(your key may not do this: do not retry; ask the account owner), `agent_scope_error` (your key is bound to another line: use that line), ' +
  '`rate_limited` (too many requests: wait the given seconds, then retry), `service_unavailable` (retry shortly).';

/** Descriptions of arguments by their API name, for every tool that takes them. */
export const ARGUMENTS: Record<string, string> = {
  line_id: "The line's id (`id` of a line from list_lines or create_line)",
  to_number: 'The phone number to call, in E.164 form: + and country code, digits only (+14155550123)',
  to: 'The phone number to text, in E.164 form (+14155550123)',
  phone_number: 'The other party’s phone number, in E.164 form (+14155550123)',
  text: 'What to say or send, as plain text',
  limit: 'How many items to return (at most 100)',
  offset: 'How many items to skip, for the next page',
  cursor: '`next_cursor` of the previous page, for the next page',
  status: 'Only items with this status',
  timeout_seconds: 'How long to wait, in seconds',
  machine_detection: '`detect` to learn whether a person or a machine answered (answered_by on the call), at the cost of a few seconds',
  name: 'A name for the line, shown in lists',
  mode:
    'Who talks on the line’s calls: `agent` (you, through speak and wait_for_reply: no webhook or prompt needed, and what the caller says is kept for your next wait_for_reply), ' +
    '`hosted` (Switchboard’s AI, with system_prompt), `webhook` (your server at webhook_url) or `audio`',
  consent_type: 'Only consent of this type',
  display_name: 'A longer label for the line, for people (optional)',
  system_prompt: 'Hosted lines: the instructions Switchboard’s AI follows on every call of the line (required in hosted mode)',
  begin_message: 'What the line says first when a call starts (optional)',
  context_limit: 'Hosted lines: how many conversation turns the AI keeps in mind',
  recording_enabled: 'Record the line’s calls',
  compliance_enabled: 'Play an AI disclosure and require recorded consent on this line’s calls and texts',
  endpointing_ms: 'How long a pause, in milliseconds, ends the caller’s sentence',
  voice: 'The voice the line speaks with (a voice slug such as the one in the example); empty for the default',
  language: 'The language callers speak, for speech recognition (default `multi`: detected). Not on hosted lines, which always detect it',
  variables:
    'Values for the {{name}} placeholders of the line’s system_prompt and begin_message, for this call only. Give a value for every placeholder, and none the texts do not use',
};

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'list_lines',
    operationId: 'listLines',
    title: 'List phone lines',
    annotations: READ,
    use: 'Lists the phone lines you can use, with their numbers and modes. Use it first to find the line_id the other tools need.',
  },
  {
    name: 'get_line',
    operationId: 'getLine',
    title: 'Get a phone line',
    annotations: READ,
    use: 'Shows one line: its number, mode, status and settings.',
    refusals: ['not_found'],
    arguments: { id: "The line's id (`id` from list_lines or create_line)" },
  },
  {
    name: 'create_line',
    operationId: 'createLine',
    title: 'Create a phone line (buys a number)',
    annotations: OUTWARD,
    use:
      'Buys a phone number and makes it a line. Use it only when no existing line fits (list_lines first): a number costs money every month. ' +
      'To talk on its calls yourself, make it an `agent` line (nothing else needed); a webhook line needs webhook_url; a hosted line needs system_prompt.',
    refusals: ['number_unavailable', 'carrier_error', 'idempotency_key_reused'],
    workspaceWide: true,
    arguments: {
      country: 'The country of the number to buy, as two letters (default US). Leave out when importing phone_number',
      number_type:
        'The kind of number to buy (default local): local, toll_free, or mobile where sold. Leave out when importing phone_number',
      area_code:
        'The area code of the number to buy (415 in North America, 800 for toll-free, 20 for London). If none is left there, try another or leave it out',
      phone_number: 'A number the account already owns, to import instead of buying one (E.164: +14155550123)',
    },
  },
  {
    name: 'place_call',
    operationId: 'placeCall',
    title: 'Place a phone call',
    annotations: OUTWARD,
    use:
      'Calls a phone number from one of your lines. It answers at once with the call `initiated`; the call rings next. ' +
      'Then call follow_call with until: "answered" to wait until it is answered (status `in_progress`), and speak / wait_for_reply to talk.',
    refusals: [
      'not_found',
      'line_no_webhook',
      'number_opted_out',
      'consent_required',
      'call_in_progress',
      'line_not_active',
      'm3_fraud_block',
      'outside_calling_hours',
      'calling_window_never_opens',
      'agent_cap_exceeded',
      'insufficient_credits',
    ],
  },
  {
    name: 'list_calls',
    operationId: 'listCalls',
    title: 'List calls',
    annotations: READ,
    use: 'Lists calls, newest first, optionally of one line or status. To be told of a new inbound call, use wait_for_call instead of listing repeatedly.',
  },
  {
    name: 'get_call',
    operationId: 'getCall',
    title: 'Get a call and its transcript',
    annotations: READ,
    use: 'Shows one call as it stands: status, who answered, duration, cost and what was said. To follow a call as it happens, use follow_call.',
    refusals: ['call_not_found'],
    arguments: { id: CALL_ID },
  },
  {
    name: 'hang_up',
    operationId: 'hangUpCall',
    title: 'Hang up a call',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    use: 'Ends the call for everyone on it. Use it when the conversation is over. Hanging up an ended call changes nothing.',
    refusals: ['call_not_found'],
    arguments: { id: CALL_ID },
  },
  {
    name: 'speak',
    operationId: 'speakOnCall',
    title: 'Say something on a call',
    annotations: OUTWARD,
    use:
      'Says text to the person on a call in progress. Set wait_for_response to also wait for their answer in the same step; otherwise call ' +
      'wait_for_reply right after, or on a webhook or hosted line their answer may go to the line’s webhook or model instead of you (an agent line keeps it for you). ' +
      '`interrupted: true` means they talked over you; ' +
      '`call_ended: true` means the call ended.',
    refusals: ['call_not_found', 'call_not_active', 'wait_in_progress', 'carrier_error'],
    arguments: {
      id: CALL_ID,
      wait_for_response: 'Also wait for the person’s next sentence (up to timeout_seconds) before answering',
      timeout_seconds:
        'How long to wait for the answer when wait_for_response is set, in seconds; keep it under your client’s request timeout',
    },
  },
  {
    name: 'wait_for_reply',
    operationId: 'waitOnCall',
    title: 'Wait for what the caller says next',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    use:
      'Waits for the person’s next sentence on a call in progress and returns it; on an agent line, the oldest one they said that no wait has taken yet. ' +
      '`timed_out: true` means they said nothing in time; ' +
      '`call_ended: true` means they hung up. Keep timeout_seconds under your client’s request timeout (a wait you give up on is withdrawn).',
    refusals: ['call_not_found', 'call_not_active', 'wait_in_progress'],
    arguments: { id: CALL_ID },
  },
  {
    name: 'press_digits',
    operationId: 'pressOnCall',
    title: 'Press keys on a call (DTMF)',
    annotations: OUTWARD,
    use: 'Plays key presses on a call in progress, e.g. to get through a phone menu. Digits 0-9, * and #; w pauses half a second.',
    refusals: ['call_not_found', 'call_not_active', 'carrier_error'],
    arguments: { id: CALL_ID, digits: 'The keys to press, in order: 0-9, *, #, and w for a half-second pause (up to 64)' },
  },
  {
    name: 'transfer_call',
    operationId: 'transferCall',
    title: 'Transfer a call to another number',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    use:
      'Hands the call to another phone number (a blind transfer). Answers once that number answered (`transferred: true`: you can no longer speak on the call) ' +
      'or did not (`transferred: false`: the call is still yours). Can take about 30 s.',
    refusals: [
      'call_not_found',
      'call_not_active',
      'number_opted_out',
      'consent_required',
      'transfer_not_supported',
      'transfer_zone_not_allowed',
      'm3_fraud_block',
      'carrier_error',
    ],
    arguments: { id: CALL_ID, to_number: 'The phone number to transfer the call to, in E.164 form (+14155550123)' },
  },
  {
    name: 'send_sms',
    operationId: 'sendMessage',
    title: 'Send a text message (SMS)',
    annotations: OUTWARD,
    use: 'Texts a phone number from one of your lines. Outside a conversation the person started in the last 24 hours it needs recorded consent.',
    refusals: [
      'not_found',
      'number_opted_out',
      'conversation_window_expired',
      'consent_required',
      'agent_cap_exceeded',
      'insufficient_credits',
    ],
  },
  {
    name: 'list_conversations',
    operationId: 'listConversations',
    title: 'List SMS conversations',
    annotations: READ,
    use: 'Lists SMS threads (one per line and phone number), most recent first. Use get_conversation to read one.',
  },
  {
    name: 'get_conversation',
    operationId: 'getConversation',
    title: 'Read an SMS conversation',
    annotations: READ,
    use: 'Shows the text messages between one of your lines and one phone number, newest first.',
    refusals: ['not_found'],
    rename: { line_id: 'lineId', phone_number: 'phoneNumber' },
  },
  {
    name: 'check_consent',
    operationId: 'checkConsent',
    title: 'Check consent for a number',
    annotations: READ,
    use: 'Tells whether a phone number has recorded consent to be called or texted (`active` or `none`). Check it before contacting someone new on a line that records consent.',
  },
  {
    name: 'get_balance',
    operationId: 'getBalance',
    title: 'Get the account balance',
    annotations: READ,
    use: 'Shows the account’s balance in cents, what is held for calls in progress, and what is available to spend.',
  },
  {
    name: 'wait_for_call',
    operationId: 'waitForInboundCall',
    title: 'Wait for an incoming call',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    use:
      'Waits until someone calls one of your lines, then returns that call. Each call is given to one wait only, so call it again to take the next one. ' +
      '`timed_out: true` (call null) means nobody called in time: call it again to keep waiting. A call that is already ringing or in progress is returned at once. ' +
      'Then use follow_call, speak and wait_for_reply on it.',
    refusals: ['not_found', 'line_released'],
    rename: { line_id: 'id' },
    arguments: {
      line_id: "The line's id (`id` from list_lines) to wait on",
      timeout_seconds: 'How long to wait for a call, in seconds (at most 50)',
    },
  },
];

/** The schema with this description, when there is one (the API's own otherwise). */
export function described(schema: object, description: string | undefined): object {
  return description ? { ...schema, description } : schema;
}
