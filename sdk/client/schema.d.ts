// Generated from the served OpenAPI document by `npm run sdk:generate`. Do not edit: regenerate.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process is serving requests */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: PostgreSQL and Temporal both answer, and the configuration passes the startup check */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/openapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics of this API process
         * @description Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set; without it, served only in the dev profile (404 otherwise).
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspace's lines in this environment, newest first
         * @description Offset pagination; the default page (100) holds every line of most workspaces, and `total` tells when there are more.
         */
        get: operations["listLines"];
        put?: never;
        /**
         * Create a line and provision its phone number
         * @description Answers 201 once the number is assigned (`status: active`), or with `status: provisioning` if the carrier takes longer than a few seconds; provisioning is a durable workflow and completes on its own. A number that cannot be provisioned leaves the line `released`. The number is a local US one unless `country`, `number_type` and `area_code` ask otherwise, or `phone_number` imports one the carrier account owns. When the carrier has no number as asked, the answer is 422 `number_unavailable` (its detail names the field) and nothing is created; When the carrier refuses the number for another reason (Twilio’s 21631 “Phone Number Requires an Address”, a Telnyx order waiting on regulatory requirements, …), the answer is 502 `carrier_error` naming the provider and its code, and nothing is created either. If either is only known after the 201 (a slow carrier), the line ends `released` with `provisioning_error` saying the same.
         */
        post: operations["createLine"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lines/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Fetch one line */
        get: operations["getLine"];
        put?: never;
        post?: never;
        /**
         * Release a line: status `released`, its number given back to the carrier
         * @description Idempotent: releasing a released line answers the same record. A released line cannot be changed, bound to keys or used. An imported number (`number_source: imported`) is only detached: the carrier account keeps it, no longer routed to Switchboard. Its active call is hung up (a call whose workflow is gone is ended by the recovery workflow).
         */
        delete: operations["releaseLine"];
        options?: never;
        head?: never;
        /** Change a line (the only way to set `language` after creation) */
        patch: operations["updateLine"];
        trace?: never;
    };
    "/api/v1/lines/{id}/webhook-secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stage a new signing secret, or promote the staged one after 24 hours
         * @description No body. First call: stages a new secret (returned once); the current one keeps signing. A call at least 24 hours after the staging promotes the staged secret to current and stages a fresh one (`promoted_previous_next: true`). A call within the 24 hours is 409 `secret_rotation_too_soon` with `promotable_at`.
         */
        post: operations["rotateLineWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lines/{id}/calls/wait": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Wait for the next inbound call on a line
         * @description Holds the request until a call comes in on the line, then answers with it (`timed_out: false`), or after `timeout_seconds` with `call: null, timed_out: true`. Each inbound call is given to one wait only: the oldest that no wait has taken yet and that is still ringing or in progress, or that arrived since the wait began (so a call already ringing when the wait starts is returned at once, and a short call that ended during the wait is returned with its final status). Concurrent waits on one line, from any client, each get a different call. A wait whose client disconnects takes nothing. The call is answered as the line’s mode says (`hosted`, `webhook`, `audio`); once `in_progress` it can be controlled (`speak`, `wait`, `press`, `transfer`, `hangup`).
         */
        post: operations["waitForInboundCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List this user's agent keys in the service key's environment (revoked keys excluded) */
        get: operations["listAgentKeys"];
        put?: never;
        /**
         * Mint an agent key
         * @description Authenticated with a service key. The plaintext is in this response only; replays (same Idempotency-Key, 12 h) return the row without it.
         */
        post: operations["mintAgentKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List this user's agent keys in the service key's environment (revoked keys excluded)
         * @description Alias of /v1/keys.
         */
        get: operations["listAgentKeysViaApiV1"];
        put?: never;
        /**
         * Mint an agent key
         * @description Alias of /v1/keys.
         */
        post: operations["mintAgentKeyViaApiV1"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Fetch one agent key, revoked ones included */
        get: operations["getAgentKey"];
        put?: never;
        post?: never;
        /** Soft-revoke, with every key minted below it: effective on the next request; the row stays readable */
        delete: operations["revokeAgentKey"];
        options?: never;
        head?: never;
        /** Update name, label, line binding (null = account-wide), permissions or monthly cap */
        patch: operations["updateAgentKey"];
        trace?: never;
    };
    "/api/v1/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Fetch one agent key, revoked ones included
         * @description Alias of /v1/keys/{id}.
         */
        get: operations["getAgentKeyViaApiV1"];
        put?: never;
        post?: never;
        /**
         * Soft-revoke, with every key minted below it: effective on the next request; the row stays readable
         * @description Alias of /v1/keys/{id}.
         */
        delete: operations["revokeAgentKeyViaApiV1"];
        options?: never;
        head?: never;
        /**
         * Update name, label, line binding (null = account-wide), permissions or monthly cap
         * @description Alias of /v1/keys/{id}.
         */
        patch: operations["updateAgentKeyViaApiV1"];
        trace?: never;
    };
    "/v1/keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate: revoke the key and mint its replacement, in one transaction
         * @description No body. The new key keeps name, agent_label, line_id, permissions and monthly_cap_cents, with `rotated_from` set, and the old key’s spend counts against its cap. Keys minted below the old key are revoked with it. A key bound to a line released since is the binding 404 (not cached: PATCH the binding, then retry). A 429 carries `Retry-After: 120`.
         */
        post: operations["rotateAgentKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate: revoke the key and mint its replacement, in one transaction
         * @description Alias of /v1/keys/{id}/rotate.
         */
        post: operations["rotateAgentKeyViaApiV1"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the workspace's keys in this environment (agent keys are listed on /v1/keys), newest first; a delegated key lists only itself and its descendants */
        get: operations["listApiTokens"];
        put?: never;
        /**
         * Mint a child key within this key’s grant
         * @description The child inherits workspace, user, environment and permission tier; `parent_key_id` is the minting key. `key` (the plaintext) is in this response only. Scopes, number allow-list and spend limit may not exceed the minting key’s (403 with details naming the part). Spend anywhere below a key counts against its limit. Revoking a key revokes every key below it. 60 per hour per workspace and environment (shared with POST /api/v1/auth/keys).
         */
        post: operations["mintApiToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-tokens/{id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke a key and every key below it (effective on their next request) */
        post: operations["revokeApiToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the workspace's regular keys in this environment (owners and admins), newest first; a delegated key lists only itself and its descendants */
        get: operations["listAuthKeys"];
        put?: never;
        /**
         * Create a regular key (owners and admins), a child of the calling key
         * @description The new key inherits the calling key’s number allow-list and spend limit; its tier’s scopes, its `line_id` and its `monthly_cap_cents` may not exceed the calling key’s (403 `forbidden`, details naming `permissions`, `line_id` or `monthly_cap_cents`). `parent_key_id` is the calling key. 60 per hour per workspace and environment (shared with POST /api-tokens).
         */
        post: operations["createAuthKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Delivery attempts, newest first: one row per attempt */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Totals, success rate and counts by event type over the last 7 days (from `since`), and by hour for the last 24 hours
         * @description `success_rate` is the share of finished attempts that succeeded, 0..1, and 0 when none has finished. Pending attempts count in `total` only.
         */
        get: operations["webhookStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signed `test` event to the line's webhook_url and return the attempt's result
         * @description One attempt, 5 s timeout, no retries; the attempt is in the delivery log like any other. The request waits for the attempt a bounded time (`WEBHOOK_TEST_WAIT_MS`, 15 s); if it has not finished by then the answer is 202 with `status: pending` (and `id: null` when the attempt has not started), and the finished attempt appears in `GET /api/v1/webhooks/deliveries`.
         */
        post: operations["sendTestWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The balance in US cents (`credits` is the legacy name of `cents`) */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Ledger transactions, newest first (cursor pagination) */
        get: operations["listTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/usage/daily": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Usage per UTC day, oldest first, one row per day */
        get: operations["usageDaily"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/usage/monthly": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Usage per UTC month, oldest first, one row per month */
        get: operations["usageMonthly"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Workspace settings for this environment */
        get: operations["getSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change settings (how the card is charged, where lines without a webhook send events, the calling window)
         * @description Workspace-wide money and routing: needs `keys:admin` on an unrestricted key of an owner or admin (not minted by another key; no line, allow-list, spend limit, monthly cap or tier below full), else 403 `forbidden` naming each restriction. Each change records a `settings_changed` compliance event.
         */
        patch: operations["updateSettings"];
        trace?: never;
    };
    "/api/v1/voices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The voice catalog; a line’s `voice` is one of these slugs */
        get: operations["listVoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/consent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** With phone_number: the consent state of that number (unwrapped `{status, consent}`); without: a list */
        get: operations["checkConsent"];
        put?: never;
        /** Record consent for a (line, phone number) */
        post: operations["grantConsent"];
        /** Revoke the active consents of a number (on one line, or on every line the key may act on) */
        delete: operations["revokeConsent"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/disclosures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Disclosures, newest first
         * @description Offset pagination; the default page (100) holds every disclosure of most workspaces.
         */
        get: operations["listDisclosures"];
        put?: never;
        /**
         * Add an AI disclosure; the default of a language is played at the start of calls on compliance-enabled lines
         * @description Workspace-wide: a line-scoped key gets 403 `agent_scope_error`, a key limited to a number allow-list 403 `forbidden`. A new default records a `disclosure_default_changed` compliance event.
         */
        post: operations["createDisclosure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/compliance/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Compliance events, newest first: consent, opt-outs, disclosures played, audit reads, key lifecycle */
        get: operations["complianceAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/compliance/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Compliance events, newest first: consent, opt-outs, disclosures played, audit reads, key lifecycle
         * @description Alias of /api/v1/compliance/audit.
         */
        get: operations["complianceEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller key's own activity (or that of a key below it), newest first
         * @description Calls, SMS, compliance events and billing transactions caused by the key; carrier-initiated traffic has no actor key and is not included. Line-scoped keys read only themselves (403 agent_scope_error). Another target must be a (non-service) key of the same user and environment, and, unless the caller is a root key (made by an operator, not minted by another key), one of the keys minted below the caller; anything else is 404. Each successful read writes an audit_read compliance event. 60 per hour per user. Service keys are refused.
         */
        get: operations["agentAuditFeed"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller key's own activity (or that of a key below it), newest first
         * @description Alias of /api/v1/audit.
         */
        get: operations["agentAuditFeedViaApiV1"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/legal-holds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Legal holds, active and released, newest first
         * @description Offset pagination. `active=true` lists the holds in force, `active=false` the released ones. An unrestricted owner or admin key only.
         */
        get: operations["listLegalHolds"];
        put?: never;
        /**
         * Place a legal hold on a call or a phone number: its stored recordings and transcripts outlive the retention
         * @description Name exactly one of `call_id` (one call) and `phone_number` (every call from or to it: a line’s number or a callee’s), else 422 naming both. While the hold is active, the daily retention (`recordings.retention_days` in the settings) skips the calls it covers. An unrestricted owner or admin key only (403 `forbidden` naming each restriction). Another workspace’s call is 404 `call_not_found`. Records a `legal_hold_placed` compliance event.
         */
        post: operations["createLegalHold"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/legal-holds/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Release a legal hold (kept, with `released_at`, for the audit)
         * @description The calls it covered are deleted by the next retention run if they are past the retention and no other hold covers them. Releasing a released hold answers it unchanged. Records a `legal_hold_released` compliance event. An unrestricted owner or admin key only.
         */
        delete: operations["releaseLegalHold"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Calls, newest first */
        get: operations["listCalls"];
        put?: never;
        /**
         * Place an outbound call from a line
         * @description Refusals, in this order: validation (422), the line (404), `line_no_webhook` (422), `number_opted_out` (403), `consent_required` (403, compliance-enabled lines), unused or missing `variables` (422 `validation_error`, field `variables.<name>`), `call_in_progress` (409), `m3_fraud_block` (403), `outside_calling_hours` (403), `agent_cap_exceeded` (402), `insufficient_credits` (402). One minute is held before dialing.  Calling hours: a call is placed only within the calling window at the callee’s local time, derived from the number (every zone a number may be in must be open): 08:00–21:00 (the US federal rule, applied to every number), the stricter rules of the callee’s country (Australia, Canada, France, Spain) and US state (hours, Sundays, holidays) on top, and the workspace’s own `calling_window` (settings) narrowing it. Outside it the call is refused 403 `outside_calling_hours`, nothing held or dialled; `details` carry `next_open_at` (UTC ISO 8601, when the window next opens), `zone` (the callee zone that is closed) and `rule` (`us_federal`, `<cc>_national` such as `ca_national`, `us_state_<xx>` or `workspace`). When the workspace’s `calling_window` and those rules never overlap for the number (e.g. 20:00–21:00 and a state that ends at 20:00), the call is refused 403 `calling_window_never_opens` (details `zone`, `rule`): no retry helps until the `calling_window` changes.`machine_detection: detect` asks the carrier who answers: the call is reported answered once detection ended (a few seconds), and `answered_by` (`human`, `machine` or `unknown`) is on the call record and in `call_started`. A machine answer does not end the call: the agent decides.
         */
        post: operations["placeCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One call, with its transcript
         * @description Beyond the call record, `recording_storage`: where the copy of its recording and transcript into the operator’s store stands (a store that is down or refuses the credentials delays it: `retrying`, with the reason and the attempts so far).
         */
        get: operations["getCall"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{id}/recording": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The call’s recording (audio), seekable with Range
         * @description The `recording_url` of a call. Once the recording is copied into the operator’s store (shortly after the call ends, or after a recording the carrier reports late), it is served from there: `Range: bytes=…` answers 206 with `Content-Range` (one range; several, or a malformed header, answer the whole recording), a range starting past the end answers 416 with `Content-Range: bytes *\/<size>`, and `ETag` is the recording’s SHA-256. Until then it is streamed from the carrier whole, whatever the Range (`Accept-Ranges: none`). `audio/wav` or `audio/mpeg`; anything else the carrier sends is `application/octet-stream`, as a download.
         */
        get: operations["getCallRecording"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{id}/hangup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hang up a call (an empty body is fine); answers with the ended call
         * @description Answers with the call once it has ended (usually at once), or as it stands after 5 s. Hanging up an ended call answers it unchanged. A call whose workflow is gone is ended by the recovery workflow (`end_cause: service_error`).
         */
        post: operations["hangUpCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/conversation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Place a call that the service holds itself, about a topic
         * @description The call is a hosted conversation whatever the line’s mode (billed at the hosted rate), with a system prompt built from `topic`; `begin_message` defaults to a greeting naming the topic; `max_duration_seconds` caps the call (10-900). The refusals of `POST /api/v1/calls` apply, in the same order. The 201 `{call}` shows the `system_prompt` and `begin_message` used (`variables` fill placeholders in the topic and begin_message as they do in a line’s texts).
         */
        post: operations["placeConversationCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{id}/speak": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Say something on a live call, optionally waiting for the answer
         * @description Answers when the text has been played (or the caller talked over it: `interrupted`, with `partial_response_text` and `interruption_reason` `caller_interrupted_control`); with `wait_for_response`, then waits up to `timeout_seconds` for the caller’s next sentence. A sentence that answers a control request is not also sent as a `message` event (nor to the model on hosted lines). One request waits for the caller at a time (a second is 409 `wait_in_progress`); a wait whose client goes away is withdrawn, so the next sentence goes to the next wait; a call that ends while waiting answers `call_ended: true` (and `timed_out: false`). On an `agent` line, sentences said while no wait was pending are kept (the latest 20): a wait answers with the oldest of them first (`response_timestamp` says when it was said).
         */
        post: operations["speakOnCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{id}/wait": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Wait for the caller’s next sentence on a live call
         * @description Answers with the caller's next sentence, or after `timeout_seconds` without one. One request waits for the caller at a time (a second is 409 `wait_in_progress`); a wait whose client goes away is withdrawn, so the next sentence goes to the next wait; a call that ends while waiting answers `call_ended: true` (and `timed_out: false`). On an `agent` line, sentences said while no wait was pending are kept (the latest 20): a wait answers with the oldest of them first (`response_timestamp` says when it was said).
         */
        post: operations["waitOnCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{id}/press": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send DTMF digits on a live call
         * @description Digits `0-9`, `*`, `#`, and `w` for a half-second pause (up to 64). Answers once the carrier has played them.
         */
        post: operations["pressOnCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{id}/transfer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Transfer a live call to a phone number (blind transfer)
         * @description Speech stops and the carrier dials `to_number` (shown the line’s number). Answers once the destination answered (`transferred: true`) or did not (`transferred: false`, `failure_reason` `not_answered` or `call_ended`; the call is then back with the agent), within about 30 s; a transfer the carrier refuses is 502 `carrier_error` (the call is back with the agent too). Transferred, the call stays `in_progress` with `transferred_to` set: Switchboard no longer hears or speaks on it (live control answers 409), a `call_transferred` event is sent, and it is held and billed minute by minute at the call’s rate until either party hangs up (`end_cause: transferred`) or it is hung up through the API. Refusals, in this order: `call_not_found` (404), validation (422: not E.164, or a party of the call), `transfer_not_supported` (409: audio-mode calls), `number_opted_out`, `consent_required` (compliance-enabled lines), `transfer_zone_not_allowed` (a destination priced above the call’s zone), `m3_fraud_block` (403), `call_not_active` (409).
         */
        post: operations["transferCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/contact-lists": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Uploaded contact lists that have not expired, newest first (cursor pagination)
         * @description The workspace’s lists in this environment, whichever key uploaded them: a deleted or expired list is not listed.
         */
        get: operations["listCampaignContactLists"];
        put?: never;
        /**
         * Upload a campaign’s contact list as CSV (up to 100,000 rows with per-contact variables), then create the campaign with its id
         * @description Answers the list’s `id`, which `POST /api/v1/campaigns` takes as `contact_list_id` (instead of `contacts`) for 7 days; a list may start several campaigns, and is deleted with its rows at `expires_at` or earlier by `DELETE /api/v1/campaigns/contact-lists/{id}`. The same file sent again with the same `Idempotency-Key` answers the same list.
         */
        post: operations["uploadCampaignContactList"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/contact-lists/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An uploaded contact list, as its upload answered it
         * @description A list that was deleted, has expired, or is another workspace’s or environment’s is 404 `not_found` alike.
         */
        get: operations["getCampaignContactList"];
        put?: never;
        post?: never;
        /**
         * Delete an uploaded contact list and its rows now, before its expiry
         * @description For personal data that must go before the list expires. Campaigns already created from the list keep their contacts (each copied the rows); a campaign created afterwards cannot name it (422 `contact_list_id`, as an unknown id). Answers the list as it was, with `deleted: true`; deleting it again, or a list that expired or is another workspace’s, is 404 `not_found`. Records a `contact_list_deleted` compliance event (the key, the list’s id and row count).
         */
        delete: operations["deleteCampaignContactList"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Campaigns, newest first (cursor pagination), each with its progress */
        get: operations["listCampaigns"];
        put?: never;
        /**
         * Create a campaign: many outbound calls from a pool of lines, paced, retried and durable
         * @description Records the campaign and its contacts (in list order: `row` 1, 2, …) and starts it at `start_at` (default now). Each call is placed as `POST /api/v1/calls` places one, from one of the pool `line_ids` that is free (a line carries one call at a time; a contact whose every line is busy waits for one), with the contact’s `variables` filling the line’s (or the `topic` conversation’s) texts and its `metadata` echoed in the call’s events. A contact refused as `POST /calls` would refuse it is skipped with its reason (`opted_out`, `consent_required`, `fraud_blocked`, `invalid_variables`); a refused hold (`insufficient_credits`, `agent_cap_exceeded`) or a pool with no usable line pauses the campaign (`paused_reason`) without using up an attempt. `retry` calls a contact again after `backoff_seconds` while its last attempt was one of `on` and fewer than `max_attempts` were made. At most `max_concurrency` calls at once (default and maximum: the number of pool lines) and `calls_per_minute` dials a minute (default 60); the workspace's campaigns together dial at most 600 a minute (422 `calls_per_minute`).
         */
        post: operations["createCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A campaign and its progress */
        get: operations["getCampaign"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Per-contact results in list order, readable while the campaign runs (cursor pagination) */
        get: operations["listCampaignResults"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/results.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every contact’s result as CSV (RFC 4180, in list order), readable while the campaign runs
         * @description Columns: row, to_number, status, outcome, skip_reason, attempts, next_attempt_at, duration_sec, charge_cents, call_ids (space-separated), variables and metadata (JSON). A text cell a spreadsheet would read as a formula (starting with = + - @, tab or carriage return) is prefixed with an apostrophe.
         */
        get: operations["exportCampaignResults"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause a campaign: no new dial; calls in progress go on to their end
         * @description Answers the campaign as it now is; the same request again changes nothing. An ended campaign (`completed`, `cancelled`) is 409 `campaign_ended`.
         */
        post: operations["pauseCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused campaign (also one that paused itself: funds and lines are checked again at its next dial)
         * @description Answers the campaign as it now is; the same request again changes nothing. An ended campaign (`completed`, `cancelled`) is 409 `campaign_ended`.
         */
        post: operations["resumeCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a campaign: contacts still waiting are `cancelled`; calls in progress go on to their end
         * @description Answers the campaign as it now is; the same request again changes nothing. An ended campaign (`completed`, `cancelled`) is 409 `campaign_ended`.
         */
        post: operations["cancelCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an SMS from a line
         * @description Allowed only if the recipient sent an SMS to this line within the last 24 hours, or an active `explicit_outbound` consent exists for the (line, recipient) pair. Refusals, in this order: validation (422), the line (403/404/409), `number_opted_out` (403), `conversation_window_expired` (403), `agent_cap_exceeded` / `insufficient_credits` (402). The price (1 ¢ per segment in zone A, times the zone multiplier) is held at once and charged when the carrier reports the message sent on (a `failed` message is free). Status moves queued → sent → delivered | undelivered | failed as receipts arrive. A 201 means the message is recorded and will be sent: it is handed to the carrier right after the answer, or within about 20 s when the sending service is briefly unreachable; a message that could not be handed over within 10 hours becomes `failed` with `error_code` `not_sent`, and its hold is released. `Idempotency-Key` is honoured: a retry returns the same message and sends nothing twice.
         */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lines/{id}/sms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an SMS from this line (older form of POST /api/v1/messages)
         * @description Allowed only if the recipient sent an SMS to this line within the last 24 hours, or an active `explicit_outbound` consent exists for the (line, recipient) pair. Refusals, in this order: validation (422), the line (403/404/409), `number_opted_out` (403), `conversation_window_expired` (403), `agent_cap_exceeded` / `insufficient_credits` (402). The price (1 ¢ per segment in zone A, times the zone multiplier) is held at once and charged when the carrier reports the message sent on (a `failed` message is free). Status moves queued → sent → delivered | undelivered | failed as receipts arrive. A 201 means the message is recorded and will be sent: it is handed to the carrier right after the answer, or within about 20 s when the sending service is briefly unreachable; a message that could not be handed over within 10 hours becomes `failed` with `error_code` `not_sent`, and its hold is released. `Idempotency-Key` is honoured: a retry returns the same message and sends nothing twice. Answers `{sms: {id, line_id, from_number, to_number, message, status, created_at}}`.
         */
        post: operations["sendLineSms"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Conversations (one per line and remote number), most recent first (cursor pagination) */
        get: operations["listConversations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/conversations/{lineId}/{phoneNumber}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A conversation's messages, newest first (cursor pagination)
         * @description The phone number is percent-encoded in the path (`%2B14155550123`); a literal `+` is accepted too.
         */
        get: operations["getConversation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "campaign.started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `campaign.started` event
         * @description Signed as every event (`x-service-signature`); retried with backoff on a failure, the same `event_id` each time.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CampaignStatusEvent"];
                };
            };
            responses: {
                /** @description Received (any 2xx); anything else or no answer in 5 seconds is retried */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "campaign.paused": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `campaign.paused` event
         * @description Signed as every event (`x-service-signature`); retried with backoff on a failure, the same `event_id` each time.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CampaignStatusEvent"];
                };
            };
            responses: {
                /** @description Received (any 2xx); anything else or no answer in 5 seconds is retried */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "campaign.resumed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `campaign.resumed` event
         * @description Signed as every event (`x-service-signature`); retried with backoff on a failure, the same `event_id` each time.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CampaignStatusEvent"];
                };
            };
            responses: {
                /** @description Received (any 2xx); anything else or no answer in 5 seconds is retried */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "campaign.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `campaign.completed` event
         * @description Signed as every event (`x-service-signature`); retried with backoff on a failure, the same `event_id` each time.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CampaignStatusEvent"];
                };
            };
            responses: {
                /** @description Received (any 2xx); anything else or no answer in 5 seconds is retried */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "campaign.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `campaign.cancelled` event
         * @description Signed as every event (`x-service-signature`); retried with backoff on a failure, the same `event_id` each time.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CampaignStatusEvent"];
                };
            };
            responses: {
                /** @description Received (any 2xx); anything else or no answer in 5 seconds is retried */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "campaign.contact_completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The `campaign.contact_completed` event
         * @description Signed as every event (`x-service-signature`); retried with backoff on a failure, the same `event_id` each time.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CampaignContactCompletedEvent"];
                };
            };
            responses: {
                /** @description Received (any 2xx); anything else or no answer in 5 seconds is retried */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Line: {
            /** Format: uuid */
            id: string;
            /** @description E.164; null while the line is provisioning. */
            phone_number: string | null;
            name: string;
            display_name: string | null;
            /** @enum {string} */
            mode: "hosted" | "webhook" | "audio" | "agent";
            system_prompt: string | null;
            begin_message: string | null;
            /** @description A voice slug from GET /api/v1/voices; spaces around it are trimmed, empty clears it. */
            voice: string | null;
            context_limit: number | null;
            /**
             * Format: uri
             * @description http(s) URL receiving webhook events; required in webhook mode. Must lead to a public address (https for live lines).
             */
            webhook_url: string | null;
            /**
             * Format: uri
             * @description ws(s) URL of the audio relay; required in audio mode. Must lead to a public address (wss for live lines).
             */
            audio_handler_url: string | null;
            /**
             * Format: uri
             * @description http(s) URL receiving call lifecycle callbacks. Must lead to a public address (https for live lines).
             */
            status_callback_url: string | null;
            recording_enabled: boolean;
            compliance_enabled: boolean;
            /** @enum {string} */
            language: "multi" | "en" | "he" | "es" | "ar" | "ru" | "fr" | "de" | "pt" | "it" | "pl" | "nl" | "tr" | "ja" | "zh";
            endpointing_ms: number | null;
            /**
             * @description Tools the model may call during a hosted conversation (hosted lines and conversation calls; at most 16). Built-ins: `transfer_call`, `hang_up`, `send_sms`, `press_digits`. Every call and result is in the transcript (`kind: tool`) and a `tool_called` event.
             * @example [
             *       {
             *         "type": "function",
             *         "name": "lookup_order",
             *         "description": "Looks up an order by its id: call it when the caller asks where their order is.",
             *         "parameters": {
             *           "type": "object",
             *           "properties": {
             *             "order_id": {
             *               "type": "string"
             *             }
             *           },
             *           "required": [
             *             "order_id"
             *           ]
             *         },
             *         "url": "https://agent.example.com/tools/lookup-order",
             *         "timeout_ms": 5000
             *       },
             *       {
             *         "type": "transfer_call",
             *         "destinations": [
             *           "+14155550123"
             *         ]
             *       }
             *     ]
             */
            tools: components["schemas"]["Tool"][] | null;
            /**
             * @description ISO 3166-1 alpha-2 country of the number (as asked, or of the imported number).
             * @example US
             */
            country: string;
            /** @enum {string} */
            number_type: "local" | "toll_free" | "mobile";
            /**
             * @description The area code asked for; null when none was.
             * @example 415
             */
            area_code: string | null;
            /**
             * @description `purchased` for this line, or `imported` from the carrier account (kept there when the line is released).
             * @enum {string}
             */
            number_source: "purchased" | "imported";
            /** @enum {string} */
            status: "provisioning" | "active" | "suspended" | "released";
            /**
             * @description Why a line was released without ever getting its number, when that was decided after the creating request had answered (a slow carrier): `number_unavailable` (nothing matched; `field` names the criterion), `carrier_error` (the carrier refused otherwise; `provider` and `provider_code` name it, as the 502 of `POST /api/v1/lines` does) or `provisioning_failed` (the carrier stayed unreachable). Null otherwise.
             * @example null
             */
            provisioning_error: {
                /** @enum {string} */
                code: "number_unavailable" | "carrier_error" | "provisioning_failed";
                /** @enum {string|null} */
                field: "area_code" | "number_type" | "country" | "phone_number" | null;
                message: string;
                /**
                 * @description For `carrier_error`: who refused.
                 * @enum {string|null}
                 */
                provider: "twilio" | "telnyx" | "simulator" | null;
                /** @description For `carrier_error`: the provider’s own code (Twilio’s `21631`, …), when it gave one. */
                provider_code: string | null;
            } | null;
            /** @enum {string} */
            environment: "test" | "live";
            /**
             * Format: date-time
             * @description End of the free 30-day grace of a user’s first line in this environment (no number fee until then).
             */
            grace_ends_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        LineCreateResponse: {
            line: components["schemas"]["Line"];
            /** @description The signing secret, in this response only (idempotent replays answer `{line}` alone). There is no endpoint to read it. */
            webhook_secret?: string;
        };
        SecretRotation: {
            /** @description The newly staged secret, returned once (not in idempotent replays). */
            webhook_secret?: string;
            /** Format: date-time */
            rotated_at: string;
            promoted_previous_next: boolean;
        };
        AgentKey: {
            /** Format: uuid */
            id: string;
            key_prefix: string;
            /** @enum {string} */
            environment: "test" | "live";
            name: string;
            /** @description Stable agent identity: lowercase, 1-128 characters, starting with a letter or digit. */
            agent_label: string | null;
            /**
             * Format: uuid
             * @description Binds the key to one line; null makes it account-wide.
             */
            line_id: string | null;
            /**
             * @description Permission tier; `legacy_full` marks a key made before tiers.
             * @enum {string}
             */
            permissions: "full" | "call_only" | "sms_only" | "read_only" | "legacy_full";
            monthly_cap_cents: number | null;
            monthly_spend_cents: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            revoked_at: string | null;
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: uuid */
            rotated_from: string | null;
            /** Format: uuid */
            created_by_service_key_id: string | null;
            /** @description Only in the first response to a mint or rotate; never in replays or reads. */
            plaintext_key?: string;
        };
        /** @description A key of the workspace as /api/v1/auth/keys mints and lists it: the agent-key record plus the scopes it holds and the key that minted it. */
        RegularKey: {
            /** Format: uuid */
            id: string;
            key_prefix: string;
            /** @enum {string} */
            environment: "test" | "live";
            name: string;
            /** @description Stable agent identity: lowercase, 1-128 characters, starting with a letter or digit. */
            agent_label: string | null;
            /**
             * Format: uuid
             * @description Binds the key to one line; null makes it account-wide.
             */
            line_id: string | null;
            /**
             * @description Permission tier; `legacy_full` marks a key made before tiers.
             * @enum {string}
             */
            permissions: "full" | "call_only" | "sms_only" | "read_only" | "legacy_full";
            monthly_cap_cents: number | null;
            monthly_spend_cents: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            revoked_at: string | null;
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: uuid */
            rotated_from: string | null;
            /** Format: uuid */
            created_by_service_key_id: string | null;
            scopes: ("calls:create" | "calls:control" | "messages:create" | "numbers:read" | "numbers:provision" | "numbers:release" | "connections:read" | "connections:write" | "consent:write" | "webhooks:write" | "billing:read" | "keys:admin" | "read")[];
            /**
             * Format: uuid
             * @description The key that minted this one; null for a key an operator made.
             */
            parent_key_id: string | null;
            /** @description Only in the first response to a mint; never in replays or reads. */
            plaintext_key?: string;
        };
        ScopedKey: {
            /** Format: uuid */
            id: string;
            name: string;
            key_prefix: string;
            /** @enum {string} */
            environment: "test" | "live";
            grant: {
                scopes: ("calls:create" | "calls:control" | "messages:create" | "numbers:read" | "numbers:provision" | "numbers:release" | "connections:read" | "connections:write" | "consent:write" | "webhooks:write" | "billing:read" | "keys:admin" | "read")[];
                resources?: {
                    numbers?: string[];
                };
                spendLimit?: {
                    amountCents: number;
                    /** @enum {string|null} */
                    resetPeriod?: "monthly" | null;
                } | null;
            };
            /** Format: uuid */
            parent_key_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            revoked_at: string | null;
            /** Format: date-time */
            last_used_at: string | null;
        };
        Transaction: {
            /** Format: uuid */
            id: string;
            /**
             * @description `card_refund` (negative): the card processor refunded an automatic recharge; `card_refund_failure` (positive): that refund did not reach the card; `card_dispute` (negative): the cardholder’s bank took an automatic recharge back (chargeback), which also turns auto-recharge off; `card_dispute_reversal` (positive): the chargeback was won. reference_id is the processor’s refund or dispute id.
             * @enum {string}
             */
            type: "signup_credit" | "credit_purchase" | "call_charge" | "number_fee" | "refund" | "auto_recharge" | "sms_charge" | "postpaid_flush" | "tier_grant" | "number_fee_topup" | "card_refund" | "card_refund_failure" | "card_dispute" | "card_dispute_reversal";
            /** @description Legacy name of amount_cents */
            amount_credits: number;
            /** @description US cents; positive credits, negative debits */
            amount_cents: number;
            balance_after_credits: number;
            balance_after_cents: number;
            description: string;
            reference_id: string | null;
            reference_type: string | null;
            /** Format: date-time */
            created_at: string;
        };
        Message: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            line_id: string;
            /** @enum {string} */
            direction: "inbound" | "outbound";
            /** @description E.164 */
            from: string;
            /** @description E.164 */
            to: string;
            text: string;
            /** @enum {string} */
            status: "queued" | "sent" | "delivered" | "failed" | "undelivered" | "received";
            /** @description GSM-7 / UCS-2 segments the text is sent as */
            segments: number;
            /** @description Set once billed; 0 for inbound and keyword replies */
            charge_cents: number | null;
            /** @description `carrier_rejected`, `carrier_unavailable` or the carrier’s code for undelivered / failed */
            error_code: string | null;
            /** Format: date-time */
            timestamp: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        LegacySms: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            line_id: string;
            /** @description E.164 */
            from_number: string;
            /** @description E.164 */
            to_number: string;
            message: string;
            /** @enum {string} */
            status: "queued" | "sent" | "delivered" | "failed" | "undelivered" | "received";
            /** Format: date-time */
            created_at: string;
        };
        Conversation: {
            /** Format: uuid */
            line_id: string;
            /** @description The remote party, E.164 */
            phone_number: string;
            /** @description The line's own number */
            line_phone_number: string | null;
            message_count: number;
            /** Format: date-time */
            last_message_at: string;
            last_message_text: string;
            /** @enum {string} */
            last_message_direction: "inbound" | "outbound";
        };
        WebhookDelivery: {
            /**
             * Format: uuid
             * @description The x-service-delivery-id of this attempt
             */
            id: string;
            /** Format: uuid */
            event_id: string;
            /** Format: uuid */
            line_id: string;
            /** Format: uuid */
            call_id: string | null;
            /** @enum {string} */
            event_type: "call_started" | "call_ended" | "call_transferred" | "interrupted" | "call_missed" | "tool_called" | "sms_received" | "message" | "call_incoming" | "call_outgoing" | "campaign.started" | "campaign.paused" | "campaign.resumed" | "campaign.completed" | "campaign.cancelled" | "campaign.contact_completed" | "test";
            url: string | null;
            /** @enum {string} */
            status: "success" | "failed" | "pending";
            http_status: number | null;
            error_message: string | null;
            /** @description Which attempt of the event this row is (1-based) */
            attempt_count: number;
            /** @description The JSON body that was signed and sent */
            request_body: unknown;
            /** @description First 1000 characters, credentials redacted */
            response_body: string | null;
            duration_ms: number | null;
            /** Format: date-time */
            created_at: string;
        };
        TestDelivery: {
            /**
             * Format: uuid
             * @description null while the attempt has not been logged yet (202)
             */
            id: string | null;
            /** Format: uuid */
            event_id: string;
            /** @enum {string} */
            status: "success" | "failed" | "pending";
            http_status: number | null;
            duration_ms: number | null;
            response_body: string | null;
            error_message: string | null;
        };
        WebhookStats: {
            total: number;
            success: number;
            failed: number;
            /** @description Share of finished attempts that succeeded; 0 before any finished */
            success_rate: number;
            by_event_type: {
                /** @enum {string} */
                event_type: "call_started" | "call_ended" | "call_transferred" | "interrupted" | "call_missed" | "tool_called" | "sms_received" | "message" | "call_incoming" | "call_outgoing" | "campaign.started" | "campaign.paused" | "campaign.resumed" | "campaign.completed" | "campaign.cancelled" | "campaign.contact_completed" | "test";
                total: number;
                success: number;
                failed: number;
            }[];
            /** @description The last 24 hours, UTC */
            by_hour: {
                /** Format: date-time */
                hour: string;
                total: number;
                success: number;
                failed: number;
            }[];
            /**
             * Format: date-time
             * @description Start of the window the counts cover (the last 7 days)
             */
            since: string;
        };
        Call: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            line_id: string;
            /** @enum {string} */
            direction: "inbound" | "outbound";
            /** @description E.164 */
            from_number: string;
            /** @description E.164 */
            to_number: string;
            /** @enum {string} */
            status: "initiated" | "ringing" | "in_progress" | "completed" | "failed" | "no_answer" | "busy" | "canceled";
            /** @enum {string|null} */
            end_cause: "caller_hangup" | "api_hangup" | "max_duration" | "insufficient_funds" | "busy" | "no_answer" | "ring_timeout" | "carrier_failed" | "canceled" | "audio_handler_closed" | "audio_handler_unavailable" | "service_error" | "transferred" | "line_busy" | "agent_hangup" | "answering_machine" | null;
            duration_sec: number | null;
            charge_cents: number | null;
            /** Format: date-time */
            started_at: string | null;
            /** Format: date-time */
            ended_at: string | null;
            recording_url: string | null;
            /**
             * @description Who answered, for a call placed with `machine_detection: detect`; null otherwise
             * @enum {string|null}
             */
            answered_by: "human" | "machine" | "unknown" | null;
            /** @description The number the call was transferred to (its destination answered) */
            transferred_to: string | null;
            transcript: {
                /** @enum {string} */
                role: "user" | "assistant";
                /** @description What was said (heard, for an interrupted reply); the digits of a key press */
                text: string;
                /** Format: date-time */
                timestamp: string;
                /**
                 * @description Present on a reply the caller talked over: `text` is the part they heard
                 * @enum {boolean}
                 */
                interrupted?: true;
                /**
                 * @description `dtmf` on the agent’s key presses (`POST /calls/{id}/press`); `tool` on a tool the model called (`text` is its name)
                 * @enum {string}
                 */
                kind?: "dtmf" | "tool";
                tool?: components["schemas"]["ToolCall"];
                /** @description Present when personal data was redacted from `text` (or a string of its `tool`) before it was stored (the settings’ `recordings.redaction`): each marker’s kind and place, in Unicode code points. What was there is not kept */
                redactions?: {
                    /** @description A built-in kind (`card_number`, `us_ssn`, `email`, `phone_number`) or a custom rule’s name */
                    kind: string;
                    /** @description Where the marker `[REDACTED:<kind>]` starts in `text` */
                    start: number;
                    /** @description The marker’s length */
                    length: number;
                    /** @description Absent for `text`; else the path of the string in the entry’s `tool` the marker is in (`tool.arguments.<key>`, `tool.result`, `tool.error`) */
                    field?: string;
                }[];
            }[] | null;
            system_prompt: string | null;
            begin_message: string | null;
            topic: string | null;
            max_duration_sec: number | null;
            /** @description The `metadata` the call was placed with (`{}` when none); echoed in every event of the call */
            metadata: {
                [key: string]: string;
            };
            /** @description The tools the call’s model may call: the line’s when the call began, or those the call was placed with (`[]` when none) */
            tools: components["schemas"]["Tool"][];
            /** Format: date-time */
            created_at: string;
        };
        /** @description Where the copy of the call’s recording, transcript and (if chosen) events into the operator’s store stands */
        RecordingStorage: {
            /**
             * @description `none`: nothing to store (no recording, no transcript yet); `pending`: being copied; `retrying`: an attempt failed and the copy is retried until the store takes it (`last_failure` says why); `failed`: refused for good (the carrier has no such recording, or the store refused the request), tried again within the week; `stored`: everything is stored and verified; `deleted`: deleted by the retention
             * @enum {string}
             */
            state: "none" | "pending" | "retrying" | "failed" | "stored" | "deleted";
            /** @description The objects the store holds, each verified (size and SHA-256 read back) */
            objects: {
                /** @enum {string} */
                kind: "recording" | "transcript" | "events";
                size_bytes: number;
                /** Format: date-time */
                stored_at: string;
            }[];
            /** @description Failed attempts since the copy began failing; 0 when it is not */
            attempts: number;
            /**
             * Format: date-time
             * @description When the copy began failing; null when it is not
             */
            failing_since: string | null;
            last_failure: {
                /**
                 * @description The object whose copy failed
                 * @enum {string}
                 */
                kind: "recording" | "transcript" | "events";
                /**
                 * @description A class, never the store’s or carrier’s words: `store_unavailable`, `credentials_refused` (the store refused them), `checksum_mismatch`, `carrier_unavailable` (retried); `carrier_refused`, `store_refused` (final); `error`
                 * @enum {string}
                 */
                reason: "store_unavailable" | "credentials_refused" | "checksum_mismatch" | "carrier_unavailable" | "carrier_refused" | "store_refused" | "error";
                /** Format: date-time */
                at: string;
            } | null;
            /**
             * Format: date-time
             * @description When the retention deleted the call’s objects (`deleted`)
             */
            deleted_at: string | null;
        };
        ToolCall: {
            /** @description The model’s id of the call */
            id: string;
            /** @description The tool’s name (a built-in’s type) */
            name: string;
            /** @description The arguments the model gave */
            arguments: Record<string, never>;
            /** @description What the model was given back: the endpoint’s answer, or the built-in’s outcome, as JSON text */
            result: string;
            /** @description Why the tool failed (the model was told), or null */
            error: string | null;
        };
        SpeakResult: {
            /** Format: uuid */
            call_id: string;
            /** @description The whole text was played */
            spoke: boolean;
            interrupted: boolean;
            /** @description What the caller heard before the interruption */
            partial_response_text: string | null;
            /** @enum {string|null} */
            interruption_reason: "caller_interrupted_control" | "call_ended" | null;
            /** @description No answer within the timeout (false when the call ended first) */
            timed_out: boolean;
            /** @description The call ended while speaking or waiting */
            call_ended: boolean;
            response_text: string | null;
            /** @description Epoch milliseconds of the caller’s answer */
            response_timestamp: number | null;
        };
        WaitResult: {
            /** Format: uuid */
            call_id: string;
            /** @description No sentence within the timeout (false when the call ended first) */
            timed_out: boolean;
            /** @description The call ended while waiting */
            call_ended: boolean;
            response_text: string | null;
            response_timestamp: number | null;
        };
        InboundCallWait: {
            /** @description The inbound call taken by this wait; null when none came in time */
            call: components["schemas"]["Call"] | null;
            /** @description No call came within timeout_seconds */
            timed_out: boolean;
        };
        PressResult: {
            /** Format: uuid */
            call_id: string;
            pressed: boolean;
            digits: string;
        };
        TransferResult: {
            /** Format: uuid */
            call_id: string;
            /** @description E.164 */
            to_number: string;
            /** @description The destination answered and is connected to the caller */
            transferred: boolean;
            /**
             * @description `not_answered` (busy, no answer, failed), `call_ended`, or `refused` (refused without a provider’s answer to name; a carrier’s refusal is 502 `carrier_error`). Null when transferred.
             * @enum {string|null}
             */
            failure_reason: "not_answered" | "refused" | "call_ended" | null;
        };
        Consent: {
            /** Format: uuid */
            id: string;
            /** @description E.164 */
            phone_number: string;
            /** Format: uuid */
            line_id: string;
            /** @enum {string} */
            consent_type: "implied_inbound" | "explicit_outbound";
            source: string;
            /** @enum {string} */
            status: "active" | "revoked";
            /** Format: date-time */
            granted_at: string;
            /** Format: date-time */
            revoked_at: string | null;
        };
        Disclosure: {
            /** Format: uuid */
            id: string;
            message: string;
            audio_url: string | null;
            /** @enum {string} */
            language: "en" | "he" | "es" | "ar" | "ru" | "fr" | "de" | "pt" | "it" | "pl" | "nl" | "tr" | "ja" | "zh";
            jurisdiction: string;
            is_default: boolean;
            /** Format: date-time */
            created_at: string;
        };
        LegalHold: {
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The call held, or null for a hold on a number
             */
            call_id: string | null;
            /** @description The number held (every call from or to it), or null for a hold on a call */
            phone_number: string | null;
            reason: string;
            /** @description False once released */
            active: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            released_at: string | null;
        };
        ComplianceEvent: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            line_id: string | null;
            /** Format: uuid */
            call_id: string | null;
            phone_number: string | null;
            /** @example consent_granted */
            event_type: string;
            /** Format: uuid */
            actor_key_id: string | null;
            metadata: Record<string, never> | null;
            /** Format: date-time */
            created_at: string;
        };
        AuditEvent: {
            /** @enum {string} */
            type: "call" | "sms" | "compliance_event" | "billing_transaction";
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description The spec’s name of created_at; both are sent
             */
            createdAt: string;
            data: Record<string, never>;
        };
        Balance: {
            /** @description Legacy name of cents */
            credits: number;
            /** @description The balance in US cents */
            cents: number;
            /** @enum {string} */
            currency: "USD";
            /** @description Reserved by calls and messages in flight */
            held_cents: number;
            available_cents: number;
        };
        Settings: {
            /** @description Receives webhook events of lines without a webhook_url */
            default_webhook_url: string | null;
            auto_recharge_enabled: boolean;
            auto_recharge_threshold_cents: number;
            auto_recharge_amount_cents: number;
            /** @description This environment’s own calling window (callee-local), narrowing the legal one; null: the legal window alone */
            calling_window: {
                /** @example 09:00 */
                start: string;
                /** @example 20:00 */
                end: string;
                days: ("sun" | "mon" | "tue" | "wed" | "thu" | "fri" | "sat")[];
            } | null;
            /** @description What is kept of each call in the operator’s recordings store, besides its recording and transcript */
            recordings: {
                /** @description Also keep each call’s events (the webhook events it raised, as sent) as JSON beside its recording and transcript; off by default */
                store_events: boolean;
                /** @description Days each call’s stored recording, transcript and events are kept (from when they were stored); a daily schedule deletes older ones, with the call’s `transcript` (then null) and what was said in its `message`, `interrupted` and `tool_called` events and their delivery attempts, except calls on legal hold (`/api/v1/legal-holds`). Null (the default): kept for ever. Under 1 or not a whole number is refused 422 naming the field */
                retention_days: number | null;
                /** @description Delete each recording at the carrier once the recordings store holds a verified copy of it (never before); afterwards it is served from the store only. Off by default: the carrier keeps its copy for its own retention */
                delete_at_carrier: boolean;
                /** @description What is redacted from transcripts before they are stored (and, with `webhooks`, from webhook payloads). Replaced whole by a PATCH: the fields it omits take their defaults */
                redaction: {
                    /**
                     * @description The personal data replaced by `[REDACTED:<kind>]` in every transcript entry before it is stored: `card_number` (13-19 digits, Luhn-checked), `us_ssn` (NNN-NN-NNNN, numbers the SSA never issues excluded), `email`, `phone_number` (national numbers read as the line’s country). None by default
                     * @example [
                     *       "card_number",
                     *       "us_ssn"
                     *     ]
                     */
                    kinds: ("card_number" | "us_ssn" | "email" | "phone_number")[];
                    /** @description Rules of your own: text matching `pattern` becomes `[REDACTED:<name>]`. A pattern that does not compile (JavaScript, `u` flag), is longer than 200 characters, uses a backreference, repeats a group holding an unbounded quantifier (`(a+)+`) or matches empty text is refused 422 naming the field. A rule that runs out of time on an entry (50 ms, then 500 ms on a second run) redacts the whole entry */
                    custom: {
                        /** @description The kind its redactions are recorded under; not a built-in kind */
                        name: string;
                        /** @example ORD-\d{6} */
                        pattern: string;
                    }[];
                    /** @description Also redact webhook payloads: the caller’s words in `message` (`text` and `context`, so the agent hears them redacted) and `interrupted`’s `partial_response_text`. Off by default */
                    webhooks: boolean;
                };
            };
        };
        UsageDay: {
            /** Format: date */
            date: string;
            calls: number;
            /** @description Billed minutes, two decimals */
            minutes: number;
            sms_inbound: number;
            sms_outbound: number;
            /** @description Legacy name of cost_cents */
            cost_credits: number;
            cost_cents: number;
        };
        UsageMonth: {
            month: string;
            calls: number;
            /** @description Billed minutes, two decimals */
            minutes: number;
            sms_inbound: number;
            sms_outbound: number;
            /** @description Legacy name of cost_cents */
            cost_credits: number;
            cost_cents: number;
        };
        Voice: {
            slug: string;
            name: string;
            /** @enum {string} */
            gender: "female" | "male" | "neutral";
            accent: string;
            description: string;
            languages: ("multi" | "en" | "he" | "es" | "ar" | "ru" | "fr" | "de" | "pt" | "it" | "pl" | "nl" | "tr" | "ja" | "zh")[];
        };
        Campaign: {
            /** Format: uuid */
            id: string;
            name: string | null;
            /** @enum {string} */
            status: "scheduled" | "running" | "paused" | "completed" | "cancelled";
            /**
             * @description Set when the campaign paused itself (a refused hold, no usable pool line); null for an operator’s pause
             * @enum {string|null}
             */
            paused_reason: "insufficient_credits" | "agent_cap_exceeded" | "line_unavailable" | null;
            line_ids: string[];
            topic: string | null;
            begin_message: string | null;
            max_duration_seconds: number | null;
            /** @enum {string} */
            machine_detection: "detect" | "disabled";
            answering_machine: {
                /** @enum {string} */
                action: "hang_up" | "voicemail";
                voicemail_message: string | null;
            } | null;
            /** Format: date-time */
            start_at: string;
            max_concurrency: number;
            calls_per_minute: number;
            retry: {
                max_attempts: number;
                backoff_seconds: number;
                on: ("busy" | "no_answer" | "failed")[];
            };
            /** @description Contacts by status, and those `done` by outcome */
            progress: {
                total: number;
                pending: number;
                dialing: number;
                done: number;
                answered: number;
                voicemail: number;
                machine: number;
                busy: number;
                no_answer: number;
                failed: number;
                skipped: number;
                cancelled: number;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: date-time */
            ended_at: string | null;
        };
        ContactList: {
            /** Format: uuid */
            id: string;
            /** @description Its contacts: the data rows after the header (blank lines not counted) */
            rows: number;
            /** @description The header as written: `phone_number`, `metadata.<key>` columns and variables */
            columns: string[];
            /** @description Rows a campaign created from the list records as skipped at once (its results’ `skip_reason`): numbers that are not phone numbers, and numbers repeating an earlier row’s */
            skipped: {
                invalid_number: number;
                duplicate_number: number;
            };
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description Until when a campaign’s creation may name it (`contact_list_id`); then it is deleted
             */
            expires_at: string;
        };
        CampaignContactResult: {
            /** Format: uuid */
            id: string;
            /** @description The contact’s position in the list (a CSV’s data row) */
            row: number;
            to_number: string;
            /** @enum {string} */
            status: "pending" | "dialing" | "done";
            /**
             * @description Set once `done`: the last attempt’s outcome, or `skipped` / `cancelled`
             * @enum {string|null}
             */
            outcome: "answered" | "voicemail" | "machine" | "busy" | "no_answer" | "failed" | "skipped" | "cancelled" | null;
            /**
             * @description Why a `skipped` contact was not called
             * @enum {string|null}
             */
            skip_reason: "invalid_number" | "duplicate_number" | "invalid_variables" | "opted_out" | "consent_required" | "fraud_blocked" | "calling_window_never_opens" | null;
            attempts: number;
            /**
             * Format: date-time
             * @description When a pending contact is due (its retry, or the wait for a free line)
             */
            next_attempt_at: string | null;
            duration_sec: number;
            charge_cents: number;
            /** @description The calls of its attempts, oldest first (GET /api/v1/calls/{id}) */
            call_ids: string[];
            variables: {
                [key: string]: string;
            };
            metadata: {
                [key: string]: string;
            };
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A change of a campaign’s status. `campaign.resumed` also carries `resumed_by`. */
        CampaignStatusEvent: {
            /** @enum {string} */
            event: "campaign.started" | "campaign.paused" | "campaign.resumed" | "campaign.completed" | "campaign.cancelled";
            /**
             * Format: uuid
             * @description The logical event, stable across retries: dedupe on it
             */
            event_id: string;
            /**
             * Format: uuid
             * @description The campaign’s first pool line not released: its webhook_url (else the workspace default) received it, its secret signed it
             */
            line_id: string;
            /** Format: uuid */
            campaign_id: string;
            /** @description When it happened, milliseconds since the epoch */
            timestamp: number;
            name: string | null;
            /** @enum {string} */
            status: "scheduled" | "running" | "paused" | "completed" | "cancelled";
            /**
             * @description With `campaign.paused`: why it paused itself; null for an operator’s pause
             * @enum {string|null}
             */
            paused_reason: "insufficient_credits" | "agent_cap_exceeded" | "line_unavailable" | null;
            /** @description The campaign’s changes of status, counted: order a campaign’s events by it */
            sequence: number;
            /** @description Contacts by status, and those `done` by outcome */
            progress: {
                total: number;
                pending: number;
                dialing: number;
                done: number;
                answered: number;
                voicemail: number;
                machine: number;
                busy: number;
                no_answer: number;
                failed: number;
                skipped: number;
                cancelled: number;
            };
            /**
             * @description With `campaign.resumed` only: an operator’s resume, or funds returning to a campaign that paused itself for them
             * @enum {string}
             */
            resumed_by?: "operator" | "funds_returned";
        };
        /** @description A dialled contact is done (or was skipped at its dial): its result as `GET /api/v1/campaigns/{id}/results` shows it */
        CampaignContactCompletedEvent: {
            /** @enum {string} */
            event: "campaign.contact_completed";
            /**
             * Format: uuid
             * @description The logical event, stable across retries: dedupe on it
             */
            event_id: string;
            /**
             * Format: uuid
             * @description The campaign’s first pool line not released: its webhook_url (else the workspace default) received it, its secret signed it
             */
            line_id: string;
            /** Format: uuid */
            campaign_id: string;
            /** @description When it happened, milliseconds since the epoch */
            timestamp: number;
            /** Format: uuid */
            contact_id: string;
            /** @description The contact’s position in the list (a CSV’s data row) */
            row: number;
            to_number: string;
            /** @enum {string} */
            status: "pending" | "dialing" | "done";
            /**
             * @description Set once `done`: the last attempt’s outcome, or `skipped` / `cancelled`
             * @enum {string|null}
             */
            outcome: "answered" | "voicemail" | "machine" | "busy" | "no_answer" | "failed" | "skipped" | "cancelled" | null;
            /**
             * @description Why a `skipped` contact was not called
             * @enum {string|null}
             */
            skip_reason: "invalid_number" | "duplicate_number" | "invalid_variables" | "opted_out" | "consent_required" | "fraud_blocked" | "calling_window_never_opens" | null;
            attempts: number;
            /**
             * Format: date-time
             * @description When a pending contact is due (its retry, or the wait for a free line)
             */
            next_attempt_at: string | null;
            duration_sec: number;
            charge_cents: number;
            /** @description The calls of its attempts, oldest first (GET /api/v1/calls/{id}) */
            call_ids: string[];
            variables: {
                [key: string]: string;
            };
            metadata: {
                [key: string]: string;
            };
            /** Format: date-time */
            updated_at: string;
        };
        Error: {
            error: {
                code: string;
                message: string;
                details?: {
                    field?: string;
                    message: string;
                }[];
            };
        };
        /**
         * @description E.164: `+`, the country calling code and the national number, no spaces or punctuation. The pattern admits each calling code with the national-number lengths its numbering plan allows (libphonenumber metadata); some operations also need a number that is assigned in that plan (422 naming the field).
         * @example +14155550123
         */
        PhoneNumber: string;
        /**
         * @example {
         *       "type": "function",
         *       "name": "lookup_order",
         *       "description": "Looks up an order by its id: call it when the caller asks where their order is.",
         *       "parameters": {
         *         "type": "object",
         *         "properties": {
         *           "order_id": {
         *             "type": "string",
         *             "pattern": "^[^\\u0000]*$"
         *           }
         *         },
         *         "required": [
         *           "order_id"
         *         ]
         *       },
         *       "url": "https://agent.example.com/tools/lookup-order",
         *       "timeout_ms": 5000
         *     }
         */
        Tool: {
            /**
             * @description `function`: Switchboard POSTs the arguments to `url`, signed like a webhook, and gives the model the answer. `transfer_call` (to one of `destinations`), `hang_up`, `send_sms` (to the caller, from the line) and `press_digits` act on the call as the matching API operations do, with the same refusals.
             * @enum {string}
             */
            type: "function" | "transfer_call" | "hang_up" | "send_sms" | "press_digits";
            /** @description A function’s name as the model calls it (letters, digits, `_`, `-`; not a built-in’s name). Functions only. */
            name?: string;
            /** @description When the model should call it; required for a function, replaces a built-in’s own wording. */
            description?: string;
            /** @description The JSON Schema (2020-12) of the arguments, an object schema of at most 8192 bytes. Functions only. */
            parameters?: {
                /** @constant */
                type: "object";
            };
            /**
             * Format: uri
             * @description The endpoint POSTed to; must lead to a public address (https for live lines), checked again at every call. Functions only.
             */
            url?: string;
            /** @description How long the endpoint may take (default 5000); past it the model is told the tool timed out. Functions only. */
            timeout_ms?: number;
            /** @description The numbers `transfer_call` may transfer to; the model picks one. Required for `transfer_call`, only there. */
            destinations?: components["schemas"]["PhoneNumber"][];
        } & (unknown & unknown);
        AgentKeyMintRequest: {
            name: string;
            /** @description Stable agent identity: lowercase, 1-128 characters, starting with a letter or digit. */
            agent_label?: string | null;
            /**
             * Format: uuid
             * @description Binds the key to one line; null makes it account-wide.
             */
            line_id?: string | null;
            /**
             * @description Permission tier. Keys made before tiers read `legacy_full`, which cannot be set.
             * @enum {string}
             */
            permissions?: "full" | "call_only" | "sms_only" | "read_only";
            monthly_cap_cents?: number | null;
            /**
             * @description Defaults to the service key's; a mismatch is 422.
             * @enum {string}
             */
            environment?: "test" | "live";
        };
        AuthKeyCreateRequest: {
            name: string;
            /** @description Stable agent identity: lowercase, 1-128 characters, starting with a letter or digit. */
            agent_label?: string | null;
            /**
             * Format: uuid
             * @description Binds the key to one line; null makes it account-wide.
             */
            line_id?: string | null;
            /**
             * @description Permission tier. Keys made before tiers read `legacy_full`, which cannot be set.
             * @enum {string}
             */
            permissions?: "full" | "call_only" | "sms_only" | "read_only";
            monthly_cap_cents?: number | null;
        };
        AgentKeyUpdateRequest: {
            name?: string;
            /** @description Stable agent identity: lowercase, 1-128 characters, starting with a letter or digit. */
            agent_label?: string | null;
            /**
             * Format: uuid
             * @description Binds the key to one line; null makes it account-wide.
             */
            line_id?: string | null;
            /**
             * @description Permission tier. Keys made before tiers read `legacy_full`, which cannot be set.
             * @enum {string}
             */
            permissions?: "full" | "call_only" | "sms_only" | "read_only";
            monthly_cap_cents?: number | null;
        };
        Grant: {
            scopes: ("calls:create" | "calls:control" | "messages:create" | "numbers:read" | "numbers:provision" | "numbers:release" | "connections:read" | "connections:write" | "consent:write" | "webhooks:write" | "billing:read" | "keys:admin" | "read")[];
            resources?: {
                numbers?: string[];
            };
            spendLimit?: {
                amountCents: number;
                /** @enum {string|null} */
                resetPeriod?: "monthly" | null;
            } | null;
        };
        ScopedKeyMintRequest: {
            name: string;
            grant: {
                scopes: ("calls:create" | "calls:control" | "messages:create" | "numbers:read" | "numbers:provision" | "numbers:release" | "connections:read" | "connections:write" | "consent:write" | "webhooks:write" | "billing:read" | "keys:admin" | "read")[];
                resources?: {
                    numbers?: string[];
                };
                spendLimit?: {
                    amountCents: number;
                    /** @enum {string|null} */
                    resetPeriod?: "monthly" | null;
                } | null;
            };
        };
        /**
         * @description Only the fields given change. null clears a nullable field. Switching to audio clears webhook_url unless it is in the same body; switching to hosted clears a language pin.
         * @example {
         *       "mode": "webhook",
         *       "webhook_url": "https://agent.example.com/switchboard/webhook",
         *       "language": "en"
         *     }
         */
        LineUpdateRequest: {
            name?: string;
            display_name?: string | null;
            /**
             * @description `text` is accepted as an alias of `webhook` and stored as `webhook`. `agent`: your agent drives each call through live control (speak, wait, press, transfer, hang up) and needs neither `webhook_url` nor `system_prompt`; caller sentences are kept for its next wait (the latest 20, oldest first), `webhook_url` (optional) receives lifecycle events only, and `begin_message` is spoken at the answer. Priced as webhook mode.
             * @enum {string}
             */
            mode?: "hosted" | "webhook" | "audio" | "agent" | "text";
            system_prompt?: string | null;
            begin_message?: string | null;
            /** @description A voice slug from GET /api/v1/voices; spaces around it are trimmed, empty clears it. */
            voice?: string | null;
            context_limit?: number | null;
            /**
             * Format: uri
             * @description http(s) URL receiving webhook events; required in webhook mode. Must lead to a public address (https for live lines).
             */
            webhook_url?: string | null;
            /**
             * Format: uri
             * @description ws(s) URL of the audio relay; required in audio mode. Must lead to a public address (wss for live lines).
             */
            audio_handler_url?: string | null;
            /**
             * Format: uri
             * @description http(s) URL receiving call lifecycle callbacks. Must lead to a public address (https for live lines).
             */
            status_callback_url?: string | null;
            recording_enabled?: boolean;
            compliance_enabled?: boolean;
            /**
             * @description Speech recognition language (default `multi`). Setting it on a hosted line, `multi` included, is refused with 400 hosted_mode_language_pinning_unsupported (hosted lines detect the language).
             * @enum {string}
             */
            language?: "multi" | "en" | "he" | "es" | "ar" | "ru" | "fr" | "de" | "pt" | "it" | "pl" | "nl" | "tr" | "ja" | "zh";
            endpointing_ms?: number | null;
            /**
             * @description Tools the model may call during a hosted conversation (hosted lines and conversation calls; at most 16). Built-ins: `transfer_call`, `hang_up`, `send_sms`, `press_digits`. Every call and result is in the transcript (`kind: tool`) and a `tool_called` event.
             * @example [
             *       {
             *         "type": "function",
             *         "name": "lookup_order",
             *         "description": "Looks up an order by its id: call it when the caller asks where their order is.",
             *         "parameters": {
             *           "type": "object",
             *           "properties": {
             *             "order_id": {
             *               "type": "string",
             *               "pattern": "^[^\\u0000]*$"
             *             }
             *           },
             *           "required": [
             *             "order_id"
             *           ]
             *         },
             *         "url": "https://agent.example.com/tools/lookup-order",
             *         "timeout_ms": 5000
             *       },
             *       {
             *         "type": "transfer_call",
             *         "destinations": [
             *           "+14155550123"
             *         ]
             *       }
             *     ]
             */
            tools?: components["schemas"]["Tool"][] | null;
        };
        /**
         * @description A line and its number: by default a local US number; `country`, `number_type` and `area_code` choose what to buy, `phone_number` imports an owned number instead.
         * @example {
         *       "name": "Front desk",
         *       "mode": "hosted",
         *       "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
         *       "begin_message": "Hello, this is Acme Dental. How can I help?",
         *       "voice": "aria"
         *     }
         */
        LineCreateRequest: {
            name: string;
            display_name?: string | null;
            /**
             * @description `text` is accepted as an alias of `webhook` and stored as `webhook`. `agent`: your agent drives each call through live control (speak, wait, press, transfer, hang up) and needs neither `webhook_url` nor `system_prompt`; caller sentences are kept for its next wait (the latest 20, oldest first), `webhook_url` (optional) receives lifecycle events only, and `begin_message` is spoken at the answer. Priced as webhook mode.
             * @enum {string}
             */
            mode: "hosted" | "webhook" | "audio" | "agent" | "text";
            system_prompt?: string | null;
            begin_message?: string | null;
            /** @description A voice slug from GET /api/v1/voices; spaces around it are trimmed, empty clears it. */
            voice?: string | null;
            context_limit?: number | null;
            /**
             * Format: uri
             * @description http(s) URL receiving webhook events; required in webhook mode. Must lead to a public address (https for live lines).
             */
            webhook_url?: string | null;
            /**
             * Format: uri
             * @description ws(s) URL of the audio relay; required in audio mode. Must lead to a public address (wss for live lines).
             */
            audio_handler_url?: string | null;
            /**
             * Format: uri
             * @description http(s) URL receiving call lifecycle callbacks. Must lead to a public address (https for live lines).
             */
            status_callback_url?: string | null;
            recording_enabled?: boolean;
            compliance_enabled?: boolean;
            /**
             * @description Speech recognition language (default `multi`). Setting it on a hosted line, `multi` included, is refused with 400 hosted_mode_language_pinning_unsupported (hosted lines detect the language).
             * @enum {string}
             */
            language?: "multi" | "en" | "he" | "es" | "ar" | "ru" | "fr" | "de" | "pt" | "it" | "pl" | "nl" | "tr" | "ja" | "zh";
            endpointing_ms?: number | null;
            /**
             * @description Tools the model may call during a hosted conversation (hosted lines and conversation calls; at most 16). Built-ins: `transfer_call`, `hang_up`, `send_sms`, `press_digits`. Every call and result is in the transcript (`kind: tool`) and a `tool_called` event.
             * @example [
             *       {
             *         "type": "function",
             *         "name": "lookup_order",
             *         "description": "Looks up an order by its id: call it when the caller asks where their order is.",
             *         "parameters": {
             *           "type": "object",
             *           "properties": {
             *             "order_id": {
             *               "type": "string",
             *               "pattern": "^[^\\u0000]*$"
             *             }
             *           },
             *           "required": [
             *             "order_id"
             *           ]
             *         },
             *         "url": "https://agent.example.com/tools/lookup-order",
             *         "timeout_ms": 5000
             *       },
             *       {
             *         "type": "transfer_call",
             *         "destinations": [
             *           "+14155550123"
             *         ]
             *       }
             *     ]
             */
            tools?: components["schemas"]["Tool"][] | null;
            /**
             * @description ISO 3166-1 alpha-2 country of the number to buy (default `US`). Not with `phone_number`.
             * @example US
             * @enum {string}
             */
            country?: "AC" | "AD" | "AE" | "AF" | "AG" | "AI" | "AL" | "AM" | "AO" | "AR" | "AS" | "AT" | "AU" | "AW" | "AX" | "AZ" | "BA" | "BB" | "BD" | "BE" | "BF" | "BG" | "BH" | "BI" | "BJ" | "BL" | "BM" | "BN" | "BO" | "BQ" | "BR" | "BS" | "BT" | "BW" | "BY" | "BZ" | "CA" | "CC" | "CD" | "CF" | "CG" | "CH" | "CI" | "CK" | "CL" | "CM" | "CN" | "CO" | "CR" | "CU" | "CV" | "CW" | "CX" | "CY" | "CZ" | "DE" | "DJ" | "DK" | "DM" | "DO" | "DZ" | "EC" | "EE" | "EG" | "EH" | "ER" | "ES" | "ET" | "FI" | "FJ" | "FK" | "FM" | "FO" | "FR" | "GA" | "GB" | "GD" | "GE" | "GF" | "GG" | "GH" | "GI" | "GL" | "GM" | "GN" | "GP" | "GQ" | "GR" | "GT" | "GU" | "GW" | "GY" | "HK" | "HN" | "HR" | "HT" | "HU" | "ID" | "IE" | "IL" | "IM" | "IN" | "IO" | "IQ" | "IR" | "IS" | "IT" | "JE" | "JM" | "JO" | "JP" | "KE" | "KG" | "KH" | "KI" | "KM" | "KN" | "KP" | "KR" | "KW" | "KY" | "KZ" | "LA" | "LB" | "LC" | "LI" | "LK" | "LR" | "LS" | "LT" | "LU" | "LV" | "LY" | "MA" | "MC" | "MD" | "ME" | "MF" | "MG" | "MH" | "MK" | "ML" | "MM" | "MN" | "MO" | "MP" | "MQ" | "MR" | "MS" | "MT" | "MU" | "MV" | "MW" | "MX" | "MY" | "MZ" | "NA" | "NC" | "NE" | "NF" | "NG" | "NI" | "NL" | "NO" | "NP" | "NR" | "NU" | "NZ" | "OM" | "PA" | "PE" | "PF" | "PG" | "PH" | "PK" | "PL" | "PM" | "PR" | "PS" | "PT" | "PW" | "PY" | "QA" | "RE" | "RO" | "RS" | "RU" | "RW" | "SA" | "SB" | "SC" | "SD" | "SE" | "SG" | "SH" | "SI" | "SJ" | "SK" | "SL" | "SM" | "SN" | "SO" | "SR" | "SS" | "ST" | "SV" | "SX" | "SY" | "SZ" | "TA" | "TC" | "TD" | "TG" | "TH" | "TJ" | "TK" | "TL" | "TM" | "TN" | "TO" | "TR" | "TT" | "TV" | "TW" | "TZ" | "UA" | "UG" | "US" | "UY" | "UZ" | "VA" | "VC" | "VE" | "VG" | "VI" | "VN" | "VU" | "WF" | "WS" | "XK" | "YE" | "YT" | "ZA" | "ZM" | "ZW";
            /**
             * @description Kind of number to buy (default `local`): `local` (geographic), `toll_free`, or `mobile` where the carrier sells them in that country. Not with `phone_number`.
             * @enum {string}
             */
            number_type?: "local" | "toll_free" | "mobile";
            /**
             * @description Area code of the number to buy: the three-digit NPA in North America (`415`; a toll-free prefix such as `800` for `toll_free`), the national destination code elsewhere (`20` for London). Checked against the country’s numbering plan (422 `validation_error`); a valid one with no numbers left is 422 `number_unavailable`. Not with `phone_number`.
             * @example 415
             */
            area_code?: string;
            /** @description Import instead of buy: an E.164 number the carrier account already owns, which the operator granted to this workspace (CLI `number grant`). Its calls and messages are routed to the line; releasing the line only detaches it (the account keeps it). A number that is not importable is 422 `number_unavailable`, whatever the reason. */
            phone_number?: components["schemas"]["PhoneNumber"];
        } & (unknown & unknown & unknown & unknown & unknown & unknown);
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{status: "ok"}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "ok";
                    };
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Both dependencies answered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ready",
                     *       "checks": {
                     *         "postgres": "ok",
                     *         "temporal": "ok"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "ready";
                        checks: {
                            /** @constant */
                            postgres: "ok";
                            /** @constant */
                            temporal: "ok";
                        };
                    };
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_ready`, naming what failed (`postgres`, `temporal`, `configuration`) without its error text, which is logged, or `draining` once the process is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_ready",
                     *         "message": "Not ready"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI 3.1 as YAML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "openapi": "3.1.0",
                     *       "info": {
                     *         "title": "Switchboard API"
                     *       },
                     *       "paths": {}
                     *     }
                     */
                    "application/yaml": {
                        /** @constant */
                        openapi: "3.1.0";
                        info: Record<string, never>;
                        paths: Record<string, never>;
                    };
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # HELP http_requests_total Requests answered
                     *     # TYPE http_requests_total counter
                     *     http_requests_total{method="GET",status="200"} 42
                     */
                    "text/plain": string;
                };
            };
            /** @description `unauthorized`: METRICS_TOKEN is set and was not presented */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: metrics are not enabled */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listLines: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{lines: [line], total}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "lines": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "phone_number": "+14155550123",
                     *           "name": "Front desk",
                     *           "display_name": "Acme Dental",
                     *           "mode": "hosted",
                     *           "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *           "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *           "voice": "aria",
                     *           "context_limit": 50,
                     *           "webhook_url": null,
                     *           "audio_handler_url": null,
                     *           "status_callback_url": "https://agent.example.com/switchboard/status",
                     *           "recording_enabled": false,
                     *           "compliance_enabled": true,
                     *           "language": "multi",
                     *           "endpointing_ms": 300,
                     *           "tools": [
                     *             {
                     *               "type": "function",
                     *               "name": "lookup_order",
                     *               "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *               "parameters": {
                     *                 "type": "object",
                     *                 "properties": {
                     *                   "order_id": {
                     *                     "type": "string"
                     *                   }
                     *                 },
                     *                 "required": [
                     *                   "order_id"
                     *                 ]
                     *               },
                     *               "url": "https://agent.example.com/tools/lookup-order",
                     *               "timeout_ms": 5000
                     *             },
                     *             {
                     *               "type": "transfer_call",
                     *               "destinations": [
                     *                 "+14155550123"
                     *               ]
                     *             }
                     *           ],
                     *           "country": "US",
                     *           "number_type": "local",
                     *           "area_code": "415",
                     *           "number_source": "purchased",
                     *           "status": "active",
                     *           "provisioning_error": null,
                     *           "environment": "test",
                     *           "grace_ends_at": "2026-01-15T09:30:00.000Z",
                     *           "created_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        lines: components["schemas"]["Line"][];
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createLine: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Front desk",
                 *       "mode": "hosted",
                 *       "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                 *       "begin_message": "Hello, this is Acme Dental. How can I help?",
                 *       "voice": "aria"
                 *     }
                 */
                "application/json": components["schemas"]["LineCreateRequest"];
            };
        };
        responses: {
            /** @description `{line, webhook_secret}`: the secret is shown only here */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "line": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "phone_number": "+14155550123",
                     *         "name": "Front desk",
                     *         "display_name": "Acme Dental",
                     *         "mode": "hosted",
                     *         "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "voice": "aria",
                     *         "context_limit": 50,
                     *         "webhook_url": null,
                     *         "audio_handler_url": null,
                     *         "status_callback_url": "https://agent.example.com/switchboard/status",
                     *         "recording_enabled": false,
                     *         "compliance_enabled": true,
                     *         "language": "multi",
                     *         "endpointing_ms": 300,
                     *         "tools": [
                     *           {
                     *             "type": "function",
                     *             "name": "lookup_order",
                     *             "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *             "parameters": {
                     *               "type": "object",
                     *               "properties": {
                     *                 "order_id": {
                     *                   "type": "string"
                     *                 }
                     *               },
                     *               "required": [
                     *                 "order_id"
                     *               ]
                     *             },
                     *             "url": "https://agent.example.com/tools/lookup-order",
                     *             "timeout_ms": 5000
                     *           },
                     *           {
                     *             "type": "transfer_call",
                     *             "destinations": [
                     *               "+14155550123"
                     *             ]
                     *           }
                     *         ],
                     *         "country": "US",
                     *         "number_type": "local",
                     *         "area_code": "415",
                     *         "number_source": "purchased",
                     *         "status": "active",
                     *         "provisioning_error": null,
                     *         "environment": "test",
                     *         "grace_ends_at": "2026-01-15T09:30:00.000Z",
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       },
                     *       "webhook_secret": "9c1d4e7f2a5b8c3d6e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d"
                     *     }
                     */
                    "application/json": components["schemas"]["LineCreateResponse"];
                };
            };
            /** @description `hosted_mode_language_pinning_unsupported`, `invalid_json` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "hosted_mode_language_pinning_unsupported",
                     *         "message": "Hosted mode language pinning unsupported"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payment_method_required`: live environment, the user already has a line and no default payment method. Replayed for 12 h under the same Idempotency-Key. */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payment_method_required",
                     *         "message": "Payment method required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused` or `idempotency_in_progress` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "idempotency_key_reused",
                     *         "message": "Idempotency key reused"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error`, one detail per field: among others a URL that leads to a non-public address or to one of Switchboard’s own services, or http/ws in live, an area code that is not one of the country’s (or not of that number type), or `phone_number` with search criteria. `number_unavailable`: the carrier has no number as asked (detail `field`: `area_code`, `number_type` or `country`), or `phone_number` cannot be imported (not granted to this workspace, held by a line, or not owned by the account: one answer for all); nothing was created. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited` (10 per hour per workspace and environment) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `carrier_error`: the carrier refused the number (to buy or to import it), for a reason no other code names. `details`: `{field: "provider", message: "twilio" | "telnyx" | "simulator"}` and, when the provider gave one, `{field: "provider_code", message: <its code>}` (Twilio’s error code, Telnyx’s `errors[0].code`, the simulator’s HTTP status). Nothing was done. Sending it again unchanged gets the same answer until the cause is settled with the carrier (often by the operator: an address or regulatory documents for a country). */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "carrier_error",
                     *         "message": "Carrier error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: provisioning could not be started */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "service_unavailable",
                     *         "message": "Service unavailable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getLine: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{line}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "line": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "phone_number": "+14155550123",
                     *         "name": "Front desk",
                     *         "display_name": "Acme Dental",
                     *         "mode": "hosted",
                     *         "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "voice": "aria",
                     *         "context_limit": 50,
                     *         "webhook_url": null,
                     *         "audio_handler_url": null,
                     *         "status_callback_url": "https://agent.example.com/switchboard/status",
                     *         "recording_enabled": false,
                     *         "compliance_enabled": true,
                     *         "language": "multi",
                     *         "endpointing_ms": 300,
                     *         "tools": [
                     *           {
                     *             "type": "function",
                     *             "name": "lookup_order",
                     *             "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *             "parameters": {
                     *               "type": "object",
                     *               "properties": {
                     *                 "order_id": {
                     *                   "type": "string"
                     *                 }
                     *               },
                     *               "required": [
                     *                 "order_id"
                     *               ]
                     *             },
                     *             "url": "https://agent.example.com/tools/lookup-order",
                     *             "timeout_ms": 5000
                     *           },
                     *           {
                     *             "type": "transfer_call",
                     *             "destinations": [
                     *               "+14155550123"
                     *             ]
                     *           }
                     *         ],
                     *         "country": "US",
                     *         "number_type": "local",
                     *         "area_code": "415",
                     *         "number_source": "purchased",
                     *         "status": "active",
                     *         "provisioning_error": null,
                     *         "environment": "test",
                     *         "grace_ends_at": "2026-01-15T09:30:00.000Z",
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        line: components["schemas"]["Line"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    releaseLine: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{line}` with `status: released` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "line": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "phone_number": "+14155550123",
                     *         "name": "Front desk",
                     *         "display_name": "Acme Dental",
                     *         "mode": "hosted",
                     *         "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "voice": "aria",
                     *         "context_limit": 50,
                     *         "webhook_url": null,
                     *         "audio_handler_url": null,
                     *         "status_callback_url": "https://agent.example.com/switchboard/status",
                     *         "recording_enabled": false,
                     *         "compliance_enabled": true,
                     *         "language": "multi",
                     *         "endpointing_ms": 300,
                     *         "tools": [
                     *           {
                     *             "type": "function",
                     *             "name": "lookup_order",
                     *             "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *             "parameters": {
                     *               "type": "object",
                     *               "properties": {
                     *                 "order_id": {
                     *                   "type": "string"
                     *                 }
                     *               },
                     *               "required": [
                     *                 "order_id"
                     *               ]
                     *             },
                     *             "url": "https://agent.example.com/tools/lookup-order",
                     *             "timeout_ms": 5000
                     *           },
                     *           {
                     *             "type": "transfer_call",
                     *             "destinations": [
                     *               "+14155550123"
                     *             ]
                     *           }
                     *         ],
                     *         "country": "US",
                     *         "number_type": "local",
                     *         "area_code": "415",
                     *         "number_source": "purchased",
                     *         "status": "active",
                     *         "provisioning_error": null,
                     *         "environment": "test",
                     *         "grace_ends_at": "2026-01-15T09:30:00.000Z",
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        line: components["schemas"]["Line"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateLine: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "mode": "webhook",
                 *       "webhook_url": "https://agent.example.com/switchboard/webhook",
                 *       "language": "en"
                 *     }
                 */
                "application/json": components["schemas"]["LineUpdateRequest"];
            };
        };
        responses: {
            /** @description `{line}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "line": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "phone_number": "+14155550123",
                     *         "name": "Front desk",
                     *         "display_name": "Acme Dental",
                     *         "mode": "hosted",
                     *         "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "voice": "aria",
                     *         "context_limit": 50,
                     *         "webhook_url": null,
                     *         "audio_handler_url": null,
                     *         "status_callback_url": "https://agent.example.com/switchboard/status",
                     *         "recording_enabled": false,
                     *         "compliance_enabled": true,
                     *         "language": "multi",
                     *         "endpointing_ms": 300,
                     *         "tools": [
                     *           {
                     *             "type": "function",
                     *             "name": "lookup_order",
                     *             "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *             "parameters": {
                     *               "type": "object",
                     *               "properties": {
                     *                 "order_id": {
                     *                   "type": "string"
                     *                 }
                     *               },
                     *               "required": [
                     *                 "order_id"
                     *               ]
                     *             },
                     *             "url": "https://agent.example.com/tools/lookup-order",
                     *             "timeout_ms": 5000
                     *           },
                     *           {
                     *             "type": "transfer_call",
                     *             "destinations": [
                     *               "+14155550123"
                     *             ]
                     *           }
                     *         ],
                     *         "country": "US",
                     *         "number_type": "local",
                     *         "area_code": "415",
                     *         "number_source": "purchased",
                     *         "status": "active",
                     *         "provisioning_error": null,
                     *         "environment": "test",
                     *         "grace_ends_at": "2026-01-15T09:30:00.000Z",
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        line: components["schemas"]["Line"];
                    };
                };
            };
            /** @description `hosted_mode_language_pinning_unsupported` (judged on the effective mode) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "hosted_mode_language_pinning_unsupported",
                     *         "message": "Hosted mode language pinning unsupported"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `line_released` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "line_released",
                     *         "message": "Line released"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error`, one detail per field: among others a URL set here that leads to a non-public address or to one of Switchboard’s own services, or http/ws in live */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateLineWebhookSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rotation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "webhook_secret": "9c1d4e7f2a5b8c3d6e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d",
                     *       "rotated_at": "2026-01-15T09:30:00.000Z",
                     *       "promoted_previous_next": true
                     *     }
                     */
                    "application/json": components["schemas"]["SecretRotation"];
                };
            };
            /** @description `duplicate_idempotency_key_header` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `secret_rotation_too_soon` or `line_released` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "secret_rotation_too_soon",
                     *         "message": "Secret rotation too soon"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    waitForInboundCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "timeout_seconds": 30
                 *     }
                 */
                "application/json": {
                    /**
                     * @description How long to wait for a call, in seconds (at most 50, so the answer comes within a client’s usual 60 s request timeout)
                     * @default 30
                     */
                    timeout_seconds?: number;
                };
            };
        };
        responses: {
            /** @description `{call, timed_out}`: the call (status as it stands: `ringing`, `in_progress`, or ended), or null when none came in time */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "call": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "direction": "outbound",
                     *         "from_number": "+14155550100",
                     *         "to_number": "+14155550123",
                     *         "status": "completed",
                     *         "end_cause": "caller_hangup",
                     *         "duration_sec": 125,
                     *         "charge_cents": 12,
                     *         "started_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z",
                     *         "recording_url": null,
                     *         "answered_by": "human",
                     *         "transferred_to": null,
                     *         "transcript": [
                     *           {
                     *             "role": "assistant",
                     *             "text": "Hi! Your appointment is confirmed for Tuesday at 10:00.",
                     *             "timestamp": "2026-01-15T09:30:00.000Z",
                     *             "interrupted": true,
                     *             "kind": "dtmf",
                     *             "tool": {
                     *               "id": "example",
                     *               "name": "Front desk",
                     *               "arguments": {},
                     *               "result": "example",
                     *               "error": "example"
                     *             },
                     *             "redactions": [
                     *               {
                     *                 "kind": "example",
                     *                 "start": 1,
                     *                 "length": 1,
                     *                 "field": "name"
                     *               }
                     *             ]
                     *           }
                     *         ],
                     *         "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "max_duration_sec": 600,
                     *         "metadata": {},
                     *         "tools": [
                     *           {
                     *             "type": "function",
                     *             "name": "lookup_order",
                     *             "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *             "parameters": {
                     *               "type": "object",
                     *               "properties": {
                     *                 "order_id": {
                     *                   "type": "string"
                     *                 }
                     *               },
                     *               "required": [
                     *                 "order_id"
                     *               ]
                     *             },
                     *             "url": "https://agent.example.com/tools/lookup-order",
                     *             "timeout_ms": 5000
                     *           }
                     *         ],
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       },
                     *       "timed_out": true
                     *     }
                     */
                    "application/json": components["schemas"]["InboundCallWait"];
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `line_released`: a released line receives no calls */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "line_released",
                     *         "message": "Line released"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgentKeys: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{keys, total}`; total counts every matching key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "key_prefix": "sk_test_4f9a",
                     *           "environment": "test",
                     *           "name": "Front desk",
                     *           "agent_label": "support-bot",
                     *           "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *           "permissions": "full",
                     *           "monthly_cap_cents": 5000,
                     *           "monthly_spend_cents": 1200,
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "revoked_at": "2026-01-15T09:30:00.000Z",
                     *           "last_used_at": "2026-01-15T09:30:00.000Z",
                     *           "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *           "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *           "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        keys: components["schemas"]["AgentKey"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    mintAgentKey: {
        parameters: {
            query?: never;
            header: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Front desk",
                 *       "agent_label": "support-bot",
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                 *       "permissions": "full",
                 *       "monthly_cap_cents": 5000,
                 *       "environment": "test"
                 *     }
                 */
                "application/json": components["schemas"]["AgentKeyMintRequest"];
            };
        };
        responses: {
            /** @description The new key with `plaintext_key` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `missing_idempotency_key` or `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "missing_idempotency_key",
                     *         "message": "Missing idempotency key"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line cannot be bound (not cached) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused` or `idempotency_in_progress` (with `Retry-After: 1`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "idempotency_key_reused",
                     *         "message": "Idempotency key reused"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgentKeysViaApiV1: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{keys, total}`; total counts every matching key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "key_prefix": "sk_test_4f9a",
                     *           "environment": "test",
                     *           "name": "Front desk",
                     *           "agent_label": "support-bot",
                     *           "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *           "permissions": "full",
                     *           "monthly_cap_cents": 5000,
                     *           "monthly_spend_cents": 1200,
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "revoked_at": "2026-01-15T09:30:00.000Z",
                     *           "last_used_at": "2026-01-15T09:30:00.000Z",
                     *           "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *           "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *           "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        keys: components["schemas"]["AgentKey"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    mintAgentKeyViaApiV1: {
        parameters: {
            query?: never;
            header: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Front desk",
                 *       "agent_label": "support-bot",
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                 *       "permissions": "full",
                 *       "monthly_cap_cents": 5000,
                 *       "environment": "test"
                 *     }
                 */
                "application/json": components["schemas"]["AgentKeyMintRequest"];
            };
        };
        responses: {
            /** @description The new key with `plaintext_key` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `missing_idempotency_key` or `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "missing_idempotency_key",
                     *         "message": "Missing idempotency key"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line cannot be bound (not cached) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused` or `idempotency_in_progress` (with `Retry-After: 1`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "idempotency_key_reused",
                     *         "message": "Idempotency key reused"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{key}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeAgentKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revoked key, `revoked_at` set */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAgentKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Front desk",
                 *       "agent_label": "support-bot",
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                 *       "permissions": "full",
                 *       "monthly_cap_cents": 5000
                 *     }
                 */
                "application/json": components["schemas"]["AgentKeyUpdateRequest"];
            };
        };
        responses: {
            /** @description `{key}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` (key, or a line that cannot be bound) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `key_revoked` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "key_revoked",
                     *         "message": "Key revoked"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentKeyViaApiV1: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{key}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeAgentKeyViaApiV1: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revoked key, `revoked_at` set */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAgentKeyViaApiV1: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Front desk",
                 *       "agent_label": "support-bot",
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                 *       "permissions": "full",
                 *       "monthly_cap_cents": 5000
                 *     }
                 */
                "application/json": components["schemas"]["AgentKeyUpdateRequest"];
            };
        };
        responses: {
            /** @description `{key}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` (key, or a line that cannot be bound) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `key_revoked` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "key_revoked",
                     *         "message": "Key revoked"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateAgentKey: {
        parameters: {
            query?: never;
            header: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key": string;
            };
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new key with `plaintext_key` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `missing_idempotency_key` or `duplicate_idempotency_key_header` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "missing_idempotency_key",
                     *         "message": "Missing idempotency key"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` (the key, or its line can no longer be bound) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `key_revoked`, `idempotency_key_reused`, `idempotency_in_progress` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "key_revoked",
                     *         "message": "Key revoked"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateAgentKeyViaApiV1: {
        parameters: {
            query?: never;
            header: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key": string;
            };
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new key with `plaintext_key` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["AgentKey"];
                    };
                };
            };
            /** @description `missing_idempotency_key` or `duplicate_idempotency_key_header` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "missing_idempotency_key",
                     *         "message": "Missing idempotency key"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` (the key, or its line can no longer be bound) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `key_revoked`, `idempotency_key_reused`, `idempotency_in_progress` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "key_revoked",
                     *         "message": "Key revoked"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiTokens: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{api_tokens, total}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "api_tokens": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "name": "Front desk",
                     *           "key_prefix": "sk_test_4f9a",
                     *           "environment": "test",
                     *           "grant": {
                     *             "scopes": [
                     *               "calls:create",
                     *               "calls:control"
                     *             ],
                     *             "resources": {
                     *               "numbers": [
                     *                 "f3c7807d-4750-43ba-a09b-f4801b2d934e"
                     *               ]
                     *             },
                     *             "spendLimit": {
                     *               "amountCents": 5000,
                     *               "resetPeriod": "monthly"
                     *             }
                     *           },
                     *           "parent_key_id": "5bccf0a3-ed44-46cc-a7fe-ce92237dd7c4",
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "revoked_at": "2026-01-15T09:30:00.000Z",
                     *           "last_used_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        api_tokens: components["schemas"]["ScopedKey"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    mintApiToken: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Front desk",
                 *       "grant": {
                 *         "scopes": [
                 *           "calls:create",
                 *           "calls:control"
                 *         ],
                 *         "resources": {
                 *           "numbers": [
                 *             "f3c7807d-4750-43ba-a09b-f4801b2d934e"
                 *           ]
                 *         },
                 *         "spendLimit": {
                 *           "amountCents": 5000,
                 *           "resetPeriod": "monthly"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ScopedKeyMintRequest"];
            };
        };
        responses: {
            /** @description `{api_token, key}` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "api_token": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "name": "Front desk",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "grant": {
                     *           "scopes": [
                     *             "calls:create",
                     *             "calls:control"
                     *           ],
                     *           "resources": {
                     *             "numbers": [
                     *               "f3c7807d-4750-43ba-a09b-f4801b2d934e"
                     *             ]
                     *           },
                     *           "spendLimit": {
                     *             "amountCents": 5000,
                     *             "resetPeriod": "monthly"
                     *           }
                     *         },
                     *         "parent_key_id": "5bccf0a3-ed44-46cc-a7fe-ce92237dd7c4",
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z"
                     *       },
                     *       "key": "sk_test_7c2e5a9b3d1f4e8a6c0b2d4f6a8c1e3b"
                     *     }
                     */
                    "application/json": {
                        api_token: components["schemas"]["ScopedKey"];
                        /** @description The plaintext key: in the first response to a mint only */
                        key?: string;
                    };
                };
            };
            /** @description `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: the grant exceeds the minting key’s */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused` or `idempotency_in_progress` (with `Retry-After: 1`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "idempotency_key_reused",
                     *         "message": "Idempotency key reused"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeApiToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{api_token}` with `revoked_at` set */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "api_token": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "name": "Front desk",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "grant": {
                     *           "scopes": [
                     *             "calls:create",
                     *             "calls:control"
                     *           ],
                     *           "resources": {
                     *             "numbers": [
                     *               "f3c7807d-4750-43ba-a09b-f4801b2d934e"
                     *             ]
                     *           },
                     *           "spendLimit": {
                     *             "amountCents": 5000,
                     *             "resetPeriod": "monthly"
                     *           }
                     *         },
                     *         "parent_key_id": "5bccf0a3-ed44-46cc-a7fe-ce92237dd7c4",
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z"
                     *       },
                     *       "key": "sk_test_7c2e5a9b3d1f4e8a6c0b2d4f6a8c1e3b"
                     *     }
                     */
                    "application/json": {
                        api_token: components["schemas"]["ScopedKey"];
                        /** @description The plaintext key: in the first response to a mint only */
                        key?: string;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAuthKeys: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{keys, total}`; total counts every matching key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "key_prefix": "sk_test_4f9a",
                     *           "environment": "test",
                     *           "name": "Front desk",
                     *           "agent_label": "support-bot",
                     *           "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *           "permissions": "full",
                     *           "monthly_cap_cents": 5000,
                     *           "monthly_spend_cents": 1200,
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "revoked_at": "2026-01-15T09:30:00.000Z",
                     *           "last_used_at": "2026-01-15T09:30:00.000Z",
                     *           "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *           "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *           "scopes": [
                     *             "calls:create",
                     *             "calls:control"
                     *           ],
                     *           "parent_key_id": "5bccf0a3-ed44-46cc-a7fe-ce92237dd7c4",
                     *           "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        keys: components["schemas"]["RegularKey"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createAuthKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Front desk",
                 *       "agent_label": "support-bot",
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                 *       "permissions": "full",
                 *       "monthly_cap_cents": 5000
                 *     }
                 */
                "application/json": components["schemas"]["AuthKeyCreateRequest"];
            };
        };
        responses: {
            /** @description `{key}` with `plaintext_key` (once) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "key_prefix": "sk_test_4f9a",
                     *         "environment": "test",
                     *         "name": "Front desk",
                     *         "agent_label": "support-bot",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "permissions": "full",
                     *         "monthly_cap_cents": 5000,
                     *         "monthly_spend_cents": 1200,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z",
                     *         "last_used_at": "2026-01-15T09:30:00.000Z",
                     *         "rotated_from": "6d88a196-5bcd-4a22-a27d-2274d6da8222",
                     *         "created_by_service_key_id": "cb257a4a-3e45-45c5-aa53-e62504695734",
                     *         "scopes": [
                     *           "calls:create",
                     *           "calls:control"
                     *         ],
                     *         "parent_key_id": "5bccf0a3-ed44-46cc-a7fe-ce92237dd7c4",
                     *         "plaintext_key": "sk_test_4f9a2c7e1b8d4a6f9e3c5b7a1d2e4f6a"
                     *       }
                     *     }
                     */
                    "application/json": {
                        key: components["schemas"]["RegularKey"];
                    };
                };
            };
            /** @description `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: not an owner or admin, or beyond the calling key’s grant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line cannot be bound */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused` or `idempotency_in_progress` (with `Retry-After: 1`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "idempotency_key_reused",
                     *         "message": "Idempotency key reused"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                status?: "success" | "failed" | "pending";
                line_id?: string;
                event_type?: "call_started" | "call_ended" | "call_transferred" | "interrupted" | "call_missed" | "tool_called" | "sms_received" | "message" | "call_incoming" | "call_outgoing" | "campaign.started" | "campaign.paused" | "campaign.resumed" | "campaign.completed" | "campaign.cancelled" | "campaign.contact_completed" | "test";
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{deliveries, total}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "deliveries": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "event_id": "57c7c826-7db4-42c8-af1d-3ecdfe37182f",
                     *           "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *           "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *           "event_type": "call_ended",
                     *           "url": "https://agent.example.com/switchboard/webhook",
                     *           "status": "success",
                     *           "http_status": 200,
                     *           "error_message": null,
                     *           "attempt_count": 1,
                     *           "request_body": {
                     *             "event": "message",
                     *             "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *             "text": "Hello?"
                     *           },
                     *           "response_body": "{\"ok\":true}",
                     *           "duration_ms": 142,
                     *           "created_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        deliveries: components["schemas"]["WebhookDelivery"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    webhookStats: {
        parameters: {
            query?: {
                line_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unwrapped stats object */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total": 1,
                     *       "success": 1,
                     *       "failed": 0,
                     *       "success_rate": 1,
                     *       "by_event_type": [
                     *         {
                     *           "event_type": "call_ended",
                     *           "total": 1,
                     *           "success": 1,
                     *           "failed": 0
                     *         }
                     *       ],
                     *       "by_hour": [
                     *         {
                     *           "hour": "2026-01-15T09:30:00.000Z",
                     *           "total": 1,
                     *           "success": 1,
                     *           "failed": 0
                     *         }
                     *       ],
                     *       "since": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookStats"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendTestWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273"
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    line_id: string;
                };
            };
        };
        responses: {
            /** @description `{delivery: {id, event_id, status, http_status, duration_ms, response_body, error_message}}`: the finished attempt */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "delivery": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "event_id": "57c7c826-7db4-42c8-af1d-3ecdfe37182f",
                     *         "status": "success",
                     *         "http_status": 200,
                     *         "duration_ms": 142,
                     *         "response_body": "{\"ok\":true}",
                     *         "error_message": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        delivery: components["schemas"]["TestDelivery"];
                    };
                };
            };
            /** @description `{delivery: {id, event_id, status: "pending", ...}}`: the attempt had not finished within the wait */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "delivery": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "event_id": "57c7c826-7db4-42c8-af1d-3ecdfe37182f",
                     *         "status": "success",
                     *         "http_status": 200,
                     *         "duration_ms": 142,
                     *         "response_body": "{\"ok\":true}",
                     *         "error_message": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        delivery: components["schemas"]["TestDelivery"];
                    };
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `line_released` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "line_released",
                     *         "message": "Line released"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{credits, cents, currency: "USD", held_cents, available_cents}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "credits": 488,
                     *       "cents": 488,
                     *       "currency": "USD",
                     *       "held_cents": 12,
                     *       "available_cents": 476
                     *     }
                     */
                    "application/json": components["schemas"]["Balance"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTransactions: {
        parameters: {
            query?: {
                limit?: number;
                /** @description `next_cursor` of the previous page (or an ISO timestamp) */
                cursor?: string | unknown | unknown | unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{transactions, has_more, next_cursor}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "transactions": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "type": "call_charge",
                     *           "amount_credits": -12,
                     *           "amount_cents": -12,
                     *           "balance_after_credits": 488,
                     *           "balance_after_cents": 488,
                     *           "description": "Outbound call, 2 minutes",
                     *           "reference_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *           "reference_type": "call",
                     *           "created_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "has_more": true,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": {
                        transactions: components["schemas"]["Transaction"][];
                        has_more: boolean;
                        /** @description Pass as `cursor` for the next page; null on the last */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `agent_scope_error` for line-scoped keys (a key limited to a number allow-list sees those lines’ transactions only) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "agent_scope_error",
                     *         "message": "Agent scope error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    usageDaily: {
        parameters: {
            query?: {
                days?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{daily: [{date, calls, minutes, sms_inbound, sms_outbound, cost_credits, cost_cents}]}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "daily": [
                     *         {
                     *           "date": "2026-01-15",
                     *           "calls": 2,
                     *           "minutes": 3.25,
                     *           "sms_inbound": 1,
                     *           "sms_outbound": 1,
                     *           "cost_credits": 37,
                     *           "cost_cents": 37
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        daily: components["schemas"]["UsageDay"][];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    usageMonthly: {
        parameters: {
            query?: {
                months?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{monthly: [{month, calls, minutes, sms_inbound, sms_outbound, cost_credits, cost_cents}]}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "monthly": [
                     *         {
                     *           "month": "2026-01",
                     *           "calls": 2,
                     *           "minutes": 3.25,
                     *           "sms_inbound": 1,
                     *           "sms_outbound": 1,
                     *           "cost_credits": 37,
                     *           "cost_cents": 37
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        monthly: components["schemas"]["UsageMonth"][];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unwrapped settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "default_webhook_url": "https://agent.example.com/switchboard/webhook",
                     *       "auto_recharge_enabled": true,
                     *       "auto_recharge_threshold_cents": 500,
                     *       "auto_recharge_amount_cents": 2000,
                     *       "calling_window": {
                     *         "start": "09:00",
                     *         "end": "20:00",
                     *         "days": [
                     *           "sun"
                     *         ]
                     *       },
                     *       "recordings": {
                     *         "store_events": true,
                     *         "retention_days": 1,
                     *         "delete_at_carrier": true,
                     *         "redaction": {
                     *           "kinds": [
                     *             "card_number",
                     *             "us_ssn"
                     *           ],
                     *           "custom": [
                     *             {
                     *               "name": "example",
                     *               "pattern": "ORD-\\d{6}"
                     *             }
                     *           ],
                     *           "webhooks": true
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Settings"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "default_webhook_url": "https://agent.example.com/switchboard/webhook",
                 *       "auto_recharge_enabled": true,
                 *       "auto_recharge_threshold_cents": 500,
                 *       "auto_recharge_amount_cents": 2000,
                 *       "calling_window": {
                 *         "start": "09:00",
                 *         "end": "20:00",
                 *         "days": [
                 *           "mon",
                 *           "tue",
                 *           "wed",
                 *           "thu",
                 *           "fri"
                 *         ]
                 *       },
                 *       "recordings": {
                 *         "store_events": true,
                 *         "retention_days": 1,
                 *         "delete_at_carrier": true,
                 *         "redaction": {
                 *           "kinds": [
                 *             "card_number",
                 *             "us_ssn"
                 *           ],
                 *           "custom": [
                 *             {
                 *               "name": "example",
                 *               "pattern": "ORD-\\d{6}"
                 *             }
                 *           ],
                 *           "webhooks": true
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description Receives webhook events of lines without a webhook_url. Must lead to a public address (https in live).
                     */
                    default_webhook_url?: string | null;
                    /** @description Charge the card on file (of this environment) when the balance runs low; on by default in live, off in test */
                    auto_recharge_enabled?: boolean;
                    /** @description Charge the card when the balance falls below this (at most $1,000) */
                    auto_recharge_threshold_cents?: number;
                    /** @description How much each automatic recharge adds (at most $1,000) */
                    auto_recharge_amount_cents?: number;
                    /** @description This environment’s own calling window, in the callee’s local time: it narrows the legal window (08:00–21:00, and stricter national and state rules) and never widens it (a start before 08:00 or an end after 21:00 is refused 422 naming the field). Null: the legal window alone. Outside it, calls are refused 403 `outside_calling_hours`. */
                    calling_window?: {
                        /**
                         * @description First minute calls may be placed, HH:MM, from 08:00 (earlier is a widening, refused 422 naming the field)
                         * @example 09:00
                         */
                        start: string;
                        /**
                         * @description End of the window (excluded), HH:MM, 21:00 at the latest (later is a widening, refused 422 naming the field); after start
                         * @example 20:00
                         */
                        end: string;
                        /**
                         * @description The days calls may be placed on (callee-local)
                         * @example [
                         *       "mon",
                         *       "tue",
                         *       "wed",
                         *       "thu",
                         *       "fri"
                         *     ]
                         */
                        days: ("sun" | "mon" | "tue" | "wed" | "thu" | "fri" | "sat")[];
                    } | null;
                    /** @description What is kept of each call in the operator’s recordings store, besides its recording and transcript */
                    recordings?: {
                        /** @description Also keep each call’s events (the webhook events it raised, as sent) as JSON beside its recording and transcript; off by default */
                        store_events?: boolean;
                        /** @description Days each call’s stored recording, transcript and events are kept (from when they were stored); a daily schedule deletes older ones, with the call’s `transcript` (then null) and what was said in its `message`, `interrupted` and `tool_called` events and their delivery attempts, except calls on legal hold (`/api/v1/legal-holds`). Null (the default): kept for ever. Under 1 or not a whole number is refused 422 naming the field */
                        retention_days?: number | null;
                        /** @description Delete each recording at the carrier once the recordings store holds a verified copy of it (never before); afterwards it is served from the store only. Off by default: the carrier keeps its copy for its own retention */
                        delete_at_carrier?: boolean;
                        /** @description What is redacted from transcripts before they are stored (and, with `webhooks`, from webhook payloads). Replaced whole by a PATCH: the fields it omits take their defaults */
                        redaction?: {
                            /**
                             * @description The personal data replaced by `[REDACTED:<kind>]` in every transcript entry before it is stored: `card_number` (13-19 digits, Luhn-checked), `us_ssn` (NNN-NN-NNNN, numbers the SSA never issues excluded), `email`, `phone_number` (national numbers read as the line’s country). None by default
                             * @example [
                             *       "card_number",
                             *       "us_ssn"
                             *     ]
                             */
                            kinds?: ("card_number" | "us_ssn" | "email" | "phone_number")[];
                            /** @description Rules of your own: text matching `pattern` becomes `[REDACTED:<name>]`. A pattern that does not compile (JavaScript, `u` flag), is longer than 200 characters, uses a backreference, repeats a group holding an unbounded quantifier (`(a+)+`) or matches empty text is refused 422 naming the field. A rule that runs out of time on an entry (50 ms, then 500 ms on a second run) redacts the whole entry */
                            custom?: {
                                /** @description The kind its redactions are recorded under; not a built-in kind */
                                name: string;
                                /** @example ORD-\d{6} */
                                pattern: string;
                            }[];
                            /** @description Also redact webhook payloads: the caller’s words in `message` (`text` and `context`, so the agent hears them redacted) and `interrupted`’s `partial_response_text`. Off by default */
                            webhooks?: boolean;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Unwrapped settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "default_webhook_url": "https://agent.example.com/switchboard/webhook",
                     *       "auto_recharge_enabled": true,
                     *       "auto_recharge_threshold_cents": 500,
                     *       "auto_recharge_amount_cents": 2000,
                     *       "calling_window": {
                     *         "start": "09:00",
                     *         "end": "20:00",
                     *         "days": [
                     *           "sun"
                     *         ]
                     *       },
                     *       "recordings": {
                     *         "store_events": true,
                     *         "retention_days": 1,
                     *         "delete_at_carrier": true,
                     *         "redaction": {
                     *           "kinds": [
                     *             "card_number",
                     *             "us_ssn"
                     *           ],
                     *           "custom": [
                     *             {
                     *               "name": "example",
                     *               "pattern": "ORD-\\d{6}"
                     *             }
                     *           ],
                     *           "webhooks": true
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Settings"];
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: not an unrestricted owner or admin key */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listVoices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{voices: [{slug, name, gender, accent, description, languages}]}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "voices": [
                     *         {
                     *           "slug": "aria",
                     *           "name": "Front desk",
                     *           "gender": "female",
                     *           "accent": "American",
                     *           "description": "Outbound call, 2 minutes",
                     *           "languages": [
                     *             "multi"
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        voices: components["schemas"]["Voice"][];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    checkConsent: {
        parameters: {
            query?: {
                phone_number?: components["schemas"]["PhoneNumber"];
                line_id?: string;
                consent_type?: "implied_inbound" | "explicit_outbound";
                status?: "active" | "revoked";
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{status: "active"|"none", consent}` for a number, `{consents, total}` otherwise */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "active",
                     *       "consent": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "phone_number": "+14155550123",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "consent_type": "implied_inbound",
                     *         "source": "api",
                     *         "status": "active",
                     *         "granted_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        status: "active" | "none";
                        consent: components["schemas"]["Consent"] | null;
                    } | {
                        consents: components["schemas"]["Consent"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    grantConsent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                 *       "phone_number": "+14155550123",
                 *       "consent_type": "implied_inbound",
                 *       "source": "api"
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    line_id: string;
                    phone_number: components["schemas"]["PhoneNumber"];
                    /** @enum {string} */
                    consent_type: "implied_inbound" | "explicit_outbound";
                    /** @description Where the consent came from, e.g. "api", "web_form"; default "api" */
                    source?: string;
                };
            };
        };
        responses: {
            /** @description `{consent}` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "consent": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "phone_number": "+14155550123",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "consent_type": "implied_inbound",
                     *         "source": "api",
                     *         "status": "active",
                     *         "granted_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        consent: components["schemas"]["Consent"];
                    };
                };
            };
            /** @description `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `consent_already_granted` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "consent_already_granted",
                     *         "message": "Consent already granted"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeConsent: {
        parameters: {
            query: {
                phone_number: components["schemas"]["PhoneNumber"];
                line_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{consent, revoked}`: the (first) revoked record and how many were revoked */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "consent": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "phone_number": "+14155550123",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "consent_type": "implied_inbound",
                     *         "source": "api",
                     *         "status": "active",
                     *         "granted_at": "2026-01-15T09:30:00.000Z",
                     *         "revoked_at": "2026-01-15T09:30:00.000Z"
                     *       },
                     *       "revoked": 1
                     *     }
                     */
                    "application/json": {
                        consent: components["schemas"]["Consent"];
                        revoked: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no active consent */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listDisclosures: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{disclosures, total}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "disclosures": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "message": "This call may be recorded for quality purposes.",
                     *           "audio_url": null,
                     *           "language": "en",
                     *           "jurisdiction": "US",
                     *           "is_default": false,
                     *           "created_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        disclosures: components["schemas"]["Disclosure"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createDisclosure: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "message": "This call may be recorded for quality purposes.",
                 *       "language": "en",
                 *       "jurisdiction": "US",
                 *       "is_default": false
                 *     }
                 */
                "application/json": {
                    message: string;
                    /**
                     * @default en
                     * @enum {string}
                     */
                    language?: "en" | "he" | "es" | "ar" | "ru" | "fr" | "de" | "pt" | "it" | "pl" | "nl" | "tr" | "ja" | "zh";
                    /** @default US */
                    jurisdiction?: string;
                    /** @description Defaults to true for the first disclosure of a language */
                    is_default?: boolean;
                };
            };
        };
        responses: {
            /** @description `{disclosure}` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "disclosure": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "message": "This call may be recorded for quality purposes.",
                     *         "audio_url": null,
                     *         "language": "en",
                     *         "jurisdiction": "US",
                     *         "is_default": false,
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        disclosure: components["schemas"]["Disclosure"];
                    };
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `agent_scope_error` or `forbidden`: a key restricted to particular lines */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "agent_scope_error",
                     *         "message": "Agent scope error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    complianceAudit: {
        parameters: {
            query?: {
                line_id?: string;
                phone_number?: components["schemas"]["PhoneNumber"];
                event_type?: string;
                /** @description Inclusive: an RFC 3339 date-time, or a date meaning 00:00 UTC that day */
                from?: string | unknown | unknown;
                /** @description Exclusive: an RFC 3339 date-time, or a date meaning 00:00 UTC that day */
                to?: string | unknown | unknown;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{events: [{id, line_id, call_id, phone_number, event_type, actor_key_id, metadata, created_at}], total}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "events": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *           "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *           "phone_number": "+14155550123",
                     *           "event_type": "consent_granted",
                     *           "actor_key_id": "b646b497-6377-476b-a87f-a856c660a421",
                     *           "metadata": {},
                     *           "created_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        events: components["schemas"]["ComplianceEvent"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    complianceEvents: {
        parameters: {
            query?: {
                line_id?: string;
                phone_number?: components["schemas"]["PhoneNumber"];
                event_type?: string;
                /** @description Inclusive: an RFC 3339 date-time, or a date meaning 00:00 UTC that day */
                from?: string | unknown | unknown;
                /** @description Exclusive: an RFC 3339 date-time, or a date meaning 00:00 UTC that day */
                to?: string | unknown | unknown;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{events: [{id, line_id, call_id, phone_number, event_type, actor_key_id, metadata, created_at}], total}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "events": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *           "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *           "phone_number": "+14155550123",
                     *           "event_type": "consent_granted",
                     *           "actor_key_id": "b646b497-6377-476b-a87f-a856c660a421",
                     *           "metadata": {},
                     *           "created_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        events: components["schemas"]["ComplianceEvent"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    agentAuditFeed: {
        parameters: {
            query?: {
                /** @description `self` or the UUID of a key of the same user and environment; any other value is 404, as for a key that does not exist */
                api_key_id?: string;
                /** @description Clamped to 1-500 */
                limit?: number;
                /** @description Comma-separated subset of call, sms, compliance_event, billing_transaction (spaces around a name and empty items are ignored; none means all) */
                event_types?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{events: [{type, id, created_at, createdAt, data}], limit, api_key_id}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "events": [
                     *         {
                     *           "type": "call",
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "data": {}
                     *         }
                     *       ],
                     *       "limit": 1,
                     *       "api_key_id": "9dc8c1db-d438-4627-ad53-3cf91e801e33"
                     *     }
                     */
                    "application/json": {
                        events: components["schemas"]["AuditEvent"][];
                        limit: number;
                        /**
                         * Format: uuid
                         * @description The resolved target key
                         */
                        api_key_id: string;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `agent_scope_error` (line-scoped key reading another key) or `forbidden` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "agent_scope_error",
                     *         "message": "Agent scope error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: not a key this caller may read */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    agentAuditFeedViaApiV1: {
        parameters: {
            query?: {
                /** @description `self` or the UUID of a key of the same user and environment; any other value is 404, as for a key that does not exist */
                api_key_id?: string;
                /** @description Clamped to 1-500 */
                limit?: number;
                /** @description Comma-separated subset of call, sms, compliance_event, billing_transaction (spaces around a name and empty items are ignored; none means all) */
                event_types?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{events: [{type, id, created_at, createdAt, data}], limit, api_key_id}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "events": [
                     *         {
                     *           "type": "call",
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "createdAt": "2026-01-15T09:30:00.000Z",
                     *           "data": {}
                     *         }
                     *       ],
                     *       "limit": 1,
                     *       "api_key_id": "9dc8c1db-d438-4627-ad53-3cf91e801e33"
                     *     }
                     */
                    "application/json": {
                        events: components["schemas"]["AuditEvent"][];
                        limit: number;
                        /**
                         * Format: uuid
                         * @description The resolved target key
                         */
                        api_key_id: string;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `agent_scope_error` (line-scoped key reading another key) or `forbidden` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "agent_scope_error",
                     *         "message": "Agent scope error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: not a key this caller may read */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listLegalHolds: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                active?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{legal_holds, total}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "legal_holds": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *           "phone_number": "+14155550123",
                     *           "reason": "example",
                     *           "active": true,
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "released_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        legal_holds: components["schemas"]["LegalHold"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: not an unrestricted owner or admin key */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createLegalHold: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                 *       "phone_number": "+14155550123",
                 *       "reason": "example"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uuid
                     * @description The call to hold
                     */
                    call_id?: string;
                    /** @description Hold every call from or to this number (E.164) */
                    phone_number?: components["schemas"]["PhoneNumber"];
                    /** @description Why (kept for the audit) */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description `{legal_hold}` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "legal_hold": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *         "phone_number": "+14155550123",
                     *         "reason": "example",
                     *         "active": true,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "released_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        legal_hold: components["schemas"]["LegalHold"];
                    };
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: not an unrestricted owner or admin key */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_found",
                     *         "message": "Call not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    releaseLegalHold: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{legal_hold}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "legal_hold": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *         "phone_number": "+14155550123",
                     *         "reason": "example",
                     *         "active": true,
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "released_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        legal_hold: components["schemas"]["LegalHold"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden`: not an unrestricted owner or admin key */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `legal_hold_not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "legal_hold_not_found",
                     *         "message": "Legal hold not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCalls: {
        parameters: {
            query?: {
                line_id?: string;
                status?: "initiated" | "ringing" | "in_progress" | "completed" | "failed" | "no_answer" | "busy" | "canceled";
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{calls, total}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "calls": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *           "direction": "outbound",
                     *           "from_number": "+14155550100",
                     *           "to_number": "+14155550123",
                     *           "status": "completed",
                     *           "end_cause": "caller_hangup",
                     *           "duration_sec": 125,
                     *           "charge_cents": 12,
                     *           "started_at": "2026-01-15T09:30:00.000Z",
                     *           "ended_at": "2026-01-15T09:30:00.000Z",
                     *           "recording_url": null,
                     *           "answered_by": "human",
                     *           "transferred_to": null,
                     *           "transcript": [
                     *             {
                     *               "role": "assistant",
                     *               "text": "Hi! Your appointment is confirmed for Tuesday at 10:00.",
                     *               "timestamp": "2026-01-15T09:30:00.000Z",
                     *               "interrupted": true,
                     *               "kind": "dtmf",
                     *               "tool": {
                     *                 "id": "example",
                     *                 "name": "Front desk",
                     *                 "arguments": {},
                     *                 "result": "example",
                     *                 "error": "example"
                     *               },
                     *               "redactions": [
                     *                 {
                     *                   "kind": "example",
                     *                   "start": 1,
                     *                   "length": 1,
                     *                   "field": "name"
                     *                 }
                     *               ]
                     *             }
                     *           ],
                     *           "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *           "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *           "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *           "max_duration_sec": 600,
                     *           "metadata": {},
                     *           "tools": [
                     *             {
                     *               "type": "function",
                     *               "name": "lookup_order",
                     *               "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *               "parameters": {
                     *                 "type": "object",
                     *                 "properties": {
                     *                   "order_id": {
                     *                     "type": "string"
                     *                   }
                     *                 },
                     *                 "required": [
                     *                   "order_id"
                     *                 ]
                     *               },
                     *               "url": "https://agent.example.com/tools/lookup-order",
                     *               "timeout_ms": 5000
                     *             }
                     *           ],
                     *           "created_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        calls: components["schemas"]["Call"][];
                        /** @description Every matching row, not only this page */
                        total: number;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    placeCall: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                 *       "to_number": "+14155550123",
                 *       "machine_detection": "disabled",
                 *       "variables": {
                 *         "first_name": "Ada"
                 *       },
                 *       "metadata": {
                 *         "order_id": "ord_1234"
                 *       },
                 *       "tools": [
                 *         {
                 *           "type": "function",
                 *           "name": "lookup_order",
                 *           "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                 *           "parameters": {
                 *             "type": "object",
                 *             "properties": {
                 *               "order_id": {
                 *                 "type": "string",
                 *                 "pattern": "^[^\\u0000]*$"
                 *               }
                 *             },
                 *             "required": [
                 *               "order_id"
                 *             ]
                 *           },
                 *           "url": "https://agent.example.com/tools/lookup-order",
                 *           "timeout_ms": 5000
                 *         },
                 *         {
                 *           "type": "transfer_call",
                 *           "destinations": [
                 *             "+14155550123"
                 *           ]
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    line_id: string;
                    to_number: components["schemas"]["PhoneNumber"];
                    /**
                     * @default disabled
                     * @enum {string}
                     */
                    machine_detection?: "detect" | "disabled";
                    /**
                     * @description Values for the `{{name}}` placeholders of the call’s system_prompt and begin_message, for this call only. Each must be used, and every placeholder then needs a value (422 `variables.<name>`); without `variables` the texts are used as written.
                     * @example {
                     *       "first_name": "Ada"
                     *     }
                     */
                    variables?: {
                        [key: string]: string;
                    };
                    /**
                     * @description Your own key-value pairs (up to 50 keys of up to 40 characters, string values up to 500): kept on the call and echoed as `metadata` in every event of the call.
                     * @example {
                     *       "order_id": "ord_1234"
                     *     }
                     */
                    metadata?: {
                        [key: string]: string;
                    };
                    /**
                     * @description Tools the model may call during a hosted conversation (hosted lines and conversation calls; at most 16). Built-ins: `transfer_call`, `hang_up`, `send_sms`, `press_digits`. Every call and result is in the transcript (`kind: tool`) and a `tool_called` event. Given, they replace the line’s tools for this call; `[]` offers none.
                     * @example [
                     *       {
                     *         "type": "function",
                     *         "name": "lookup_order",
                     *         "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *         "parameters": {
                     *           "type": "object",
                     *           "properties": {
                     *             "order_id": {
                     *               "type": "string",
                     *               "pattern": "^[^\\u0000]*$"
                     *             }
                     *           },
                     *           "required": [
                     *             "order_id"
                     *           ]
                     *         },
                     *         "url": "https://agent.example.com/tools/lookup-order",
                     *         "timeout_ms": 5000
                     *       },
                     *       {
                     *         "type": "transfer_call",
                     *         "destinations": [
                     *           "+14155550123"
                     *         ]
                     *       }
                     *     ]
                     */
                    tools?: components["schemas"]["Tool"][] | null;
                };
            };
        };
        responses: {
            /** @description `{call}` with status `initiated` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "call": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "direction": "outbound",
                     *         "from_number": "+14155550100",
                     *         "to_number": "+14155550123",
                     *         "status": "completed",
                     *         "end_cause": "caller_hangup",
                     *         "duration_sec": 125,
                     *         "charge_cents": 12,
                     *         "started_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z",
                     *         "recording_url": null,
                     *         "answered_by": "human",
                     *         "transferred_to": null,
                     *         "transcript": [
                     *           {
                     *             "role": "assistant",
                     *             "text": "Hi! Your appointment is confirmed for Tuesday at 10:00.",
                     *             "timestamp": "2026-01-15T09:30:00.000Z",
                     *             "interrupted": true,
                     *             "kind": "dtmf",
                     *             "tool": {
                     *               "id": "example",
                     *               "name": "Front desk",
                     *               "arguments": {},
                     *               "result": "example",
                     *               "error": "example"
                     *             },
                     *             "redactions": [
                     *               {
                     *                 "kind": "example",
                     *                 "start": 1,
                     *                 "length": 1,
                     *                 "field": "name"
                     *               }
                     *             ]
                     *           }
                     *         ],
                     *         "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "max_duration_sec": 600,
                     *         "metadata": {},
                     *         "tools": [
                     *           {
                     *             "type": "function",
                     *             "name": "lookup_order",
                     *             "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *             "parameters": {
                     *               "type": "object",
                     *               "properties": {
                     *                 "order_id": {
                     *                   "type": "string"
                     *                 }
                     *               },
                     *               "required": [
                     *                 "order_id"
                     *               ]
                     *             },
                     *             "url": "https://agent.example.com/tools/lookup-order",
                     *             "timeout_ms": 5000
                     *           }
                     *         ],
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        call: components["schemas"]["Call"];
                    };
                };
            };
            /** @description `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_credits` or `agent_cap_exceeded` (details spent_cents, cap_cents, cycle_reset_at) */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "insufficient_credits",
                     *         "message": "Insufficient credits"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `number_opted_out`, `consent_required`, `m3_fraud_block`, `outside_calling_hours` (details `next_open_at`, `zone`, `rule`), `calling_window_never_opens`, `agent_permission_denied`, `forbidden` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "number_opted_out",
                     *         "message": "Number opted out"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_in_progress`, `line_not_active` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_in_progress",
                     *         "message": "Call in progress"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the call could not be started (nothing held, nothing dialled); `Retry-After` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "service_unavailable",
                     *         "message": "Service unavailable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{call}` with `recording_storage` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "call": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "direction": "outbound",
                     *         "from_number": "+14155550100",
                     *         "to_number": "+14155550123",
                     *         "status": "completed",
                     *         "end_cause": "caller_hangup",
                     *         "duration_sec": 125,
                     *         "charge_cents": 12,
                     *         "started_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z",
                     *         "recording_url": null,
                     *         "answered_by": "human",
                     *         "transferred_to": null,
                     *         "transcript": [
                     *           {
                     *             "role": "assistant",
                     *             "text": "Hi! Your appointment is confirmed for Tuesday at 10:00.",
                     *             "timestamp": "2026-01-15T09:30:00.000Z",
                     *             "interrupted": true,
                     *             "kind": "dtmf",
                     *             "tool": {
                     *               "id": "example",
                     *               "name": "Front desk",
                     *               "arguments": {},
                     *               "result": "example",
                     *               "error": "example"
                     *             },
                     *             "redactions": [
                     *               {
                     *                 "kind": "example",
                     *                 "start": 1,
                     *                 "length": 1,
                     *                 "field": "name"
                     *               }
                     *             ]
                     *           }
                     *         ],
                     *         "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "max_duration_sec": 600,
                     *         "metadata": {},
                     *         "tools": [
                     *           {
                     *             "type": "function",
                     *             "name": "lookup_order",
                     *             "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *             "parameters": {
                     *               "type": "object",
                     *               "properties": {
                     *                 "order_id": {
                     *                   "type": "string"
                     *                 }
                     *               },
                     *               "required": [
                     *                 "order_id"
                     *               ]
                     *             },
                     *             "url": "https://agent.example.com/tools/lookup-order",
                     *             "timeout_ms": 5000
                     *           }
                     *         ],
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "recording_storage": {
                     *           "state": "none",
                     *           "objects": [
                     *             {
                     *               "kind": "recording",
                     *               "size_bytes": 1,
                     *               "stored_at": "2026-01-15T09:30:00.000Z"
                     *             }
                     *           ],
                     *           "attempts": 1,
                     *           "failing_since": "2026-01-15T09:30:00.000Z",
                     *           "last_failure": {
                     *             "kind": "recording",
                     *             "reason": "store_unavailable",
                     *             "at": "2026-01-15T09:30:00.000Z"
                     *           },
                     *           "deleted_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        call: components["schemas"]["Call"] & {
                            recording_storage: components["schemas"]["RecordingStorage"];
                        };
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_found",
                     *         "message": "Call not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCallRecording: {
        parameters: {
            query?: never;
            header?: {
                /** @description One byte range, e.g. `bytes=0-99`, `bytes=100-`, `bytes=-500` */
                Range?: string;
            };
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole recording */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example example */
                    "audio/wav": string;
                    /** @example example */
                    "audio/mpeg": string;
                    /** @example example */
                    "application/octet-stream": string;
                };
            };
            /** @description The range asked for (`Content-Range: bytes start-end/size`) */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example example */
                    "audio/wav": string;
                    /** @example example */
                    "audio/mpeg": string;
                    /** @example example */
                    "application/octet-stream": string;
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_found`; `not_found`: the call has no recording (none was made, or it is not ready yet) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_found",
                     *         "message": "Call not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `range_not_satisfiable`: the range starts past the end (`Content-Range: bytes *\/<size>`) */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "range_not_satisfiable",
                     *         "message": "Range not satisfiable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: neither the store nor the carrier can hand the recording over right now; `Retry-After` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "service_unavailable",
                     *         "message": "Service unavailable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    hangUpCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{call}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "call": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "direction": "outbound",
                     *         "from_number": "+14155550100",
                     *         "to_number": "+14155550123",
                     *         "status": "completed",
                     *         "end_cause": "caller_hangup",
                     *         "duration_sec": 125,
                     *         "charge_cents": 12,
                     *         "started_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z",
                     *         "recording_url": null,
                     *         "answered_by": "human",
                     *         "transferred_to": null,
                     *         "transcript": [
                     *           {
                     *             "role": "assistant",
                     *             "text": "Hi! Your appointment is confirmed for Tuesday at 10:00.",
                     *             "timestamp": "2026-01-15T09:30:00.000Z",
                     *             "interrupted": true,
                     *             "kind": "dtmf",
                     *             "tool": {
                     *               "id": "example",
                     *               "name": "Front desk",
                     *               "arguments": {},
                     *               "result": "example",
                     *               "error": "example"
                     *             },
                     *             "redactions": [
                     *               {
                     *                 "kind": "example",
                     *                 "start": 1,
                     *                 "length": 1,
                     *                 "field": "name"
                     *               }
                     *             ]
                     *           }
                     *         ],
                     *         "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "max_duration_sec": 600,
                     *         "metadata": {},
                     *         "tools": [
                     *           {
                     *             "type": "function",
                     *             "name": "lookup_order",
                     *             "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *             "parameters": {
                     *               "type": "object",
                     *               "properties": {
                     *                 "order_id": {
                     *                   "type": "string"
                     *                 }
                     *               },
                     *               "required": [
                     *                 "order_id"
                     *               ]
                     *             },
                     *             "url": "https://agent.example.com/tools/lookup-order",
                     *             "timeout_ms": 5000
                     *           }
                     *         ],
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        call: components["schemas"]["Call"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_found",
                     *         "message": "Call not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many requests on this call at once (Temporal’s per-workflow limits); `Retry-After` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the call service is unreachable or overloaded; `Retry-After` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "service_unavailable",
                     *         "message": "Service unavailable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    placeConversationCall: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                 *       "to_number": "+14155550123",
                 *       "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                 *       "begin_message": "Hello, this is Acme Dental. How can I help?",
                 *       "max_duration_seconds": 600,
                 *       "machine_detection": "disabled",
                 *       "variables": {
                 *         "first_name": "Ada"
                 *       },
                 *       "metadata": {
                 *         "order_id": "ord_1234"
                 *       },
                 *       "tools": [
                 *         {
                 *           "type": "function",
                 *           "name": "lookup_order",
                 *           "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                 *           "parameters": {
                 *             "type": "object",
                 *             "properties": {
                 *               "order_id": {
                 *                 "type": "string",
                 *                 "pattern": "^[^\\u0000]*$"
                 *               }
                 *             },
                 *             "required": [
                 *               "order_id"
                 *             ]
                 *           },
                 *           "url": "https://agent.example.com/tools/lookup-order",
                 *           "timeout_ms": 5000
                 *         },
                 *         {
                 *           "type": "transfer_call",
                 *           "destinations": [
                 *             "+14155550123"
                 *           ]
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    line_id: string;
                    to_number: components["schemas"]["PhoneNumber"];
                    topic: string;
                    begin_message?: string;
                    max_duration_seconds?: number;
                    /**
                     * @default disabled
                     * @enum {string}
                     */
                    machine_detection?: "detect" | "disabled";
                    /**
                     * @description Values for the `{{name}}` placeholders of the call’s system_prompt and begin_message, for this call only. Each must be used, and every placeholder then needs a value (422 `variables.<name>`); without `variables` the texts are used as written.
                     * @example {
                     *       "first_name": "Ada"
                     *     }
                     */
                    variables?: {
                        [key: string]: string;
                    };
                    /**
                     * @description Your own key-value pairs (up to 50 keys of up to 40 characters, string values up to 500): kept on the call and echoed as `metadata` in every event of the call.
                     * @example {
                     *       "order_id": "ord_1234"
                     *     }
                     */
                    metadata?: {
                        [key: string]: string;
                    };
                    /**
                     * @description Tools the model may call during a hosted conversation (hosted lines and conversation calls; at most 16). Built-ins: `transfer_call`, `hang_up`, `send_sms`, `press_digits`. Every call and result is in the transcript (`kind: tool`) and a `tool_called` event. Given, they replace the line’s tools for this call; `[]` offers none.
                     * @example [
                     *       {
                     *         "type": "function",
                     *         "name": "lookup_order",
                     *         "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *         "parameters": {
                     *           "type": "object",
                     *           "properties": {
                     *             "order_id": {
                     *               "type": "string",
                     *               "pattern": "^[^\\u0000]*$"
                     *             }
                     *           },
                     *           "required": [
                     *             "order_id"
                     *           ]
                     *         },
                     *         "url": "https://agent.example.com/tools/lookup-order",
                     *         "timeout_ms": 5000
                     *       },
                     *       {
                     *         "type": "transfer_call",
                     *         "destinations": [
                     *           "+14155550123"
                     *         ]
                     *       }
                     *     ]
                     */
                    tools?: components["schemas"]["Tool"][] | null;
                };
            };
        };
        responses: {
            /** @description `{call}` with status `initiated`, `system_prompt` and `begin_message` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "call": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "direction": "outbound",
                     *         "from_number": "+14155550100",
                     *         "to_number": "+14155550123",
                     *         "status": "completed",
                     *         "end_cause": "caller_hangup",
                     *         "duration_sec": 125,
                     *         "charge_cents": 12,
                     *         "started_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z",
                     *         "recording_url": null,
                     *         "answered_by": "human",
                     *         "transferred_to": null,
                     *         "transcript": [
                     *           {
                     *             "role": "assistant",
                     *             "text": "Hi! Your appointment is confirmed for Tuesday at 10:00.",
                     *             "timestamp": "2026-01-15T09:30:00.000Z",
                     *             "interrupted": true,
                     *             "kind": "dtmf",
                     *             "tool": {
                     *               "id": "example",
                     *               "name": "Front desk",
                     *               "arguments": {},
                     *               "result": "example",
                     *               "error": "example"
                     *             },
                     *             "redactions": [
                     *               {
                     *                 "kind": "example",
                     *                 "start": 1,
                     *                 "length": 1,
                     *                 "field": "name"
                     *               }
                     *             ]
                     *           }
                     *         ],
                     *         "system_prompt": "You answer the front desk of a dental clinic. Be brief and friendly.",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "max_duration_sec": 600,
                     *         "metadata": {},
                     *         "tools": [
                     *           {
                     *             "type": "function",
                     *             "name": "lookup_order",
                     *             "description": "Looks up an order by its id: call it when the caller asks where their order is.",
                     *             "parameters": {
                     *               "type": "object",
                     *               "properties": {
                     *                 "order_id": {
                     *                   "type": "string"
                     *                 }
                     *               },
                     *               "required": [
                     *                 "order_id"
                     *               ]
                     *             },
                     *             "url": "https://agent.example.com/tools/lookup-order",
                     *             "timeout_ms": 5000
                     *           }
                     *         ],
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        call: components["schemas"]["Call"];
                    };
                };
            };
            /** @description `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_credits` or `agent_cap_exceeded` */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "insufficient_credits",
                     *         "message": "Insufficient credits"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `number_opted_out`, `consent_required`, `m3_fraud_block`, `outside_calling_hours` (details `next_open_at`, `zone`, `rule`), `calling_window_never_opens`, `agent_permission_denied`, `forbidden` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "number_opted_out",
                     *         "message": "Number opted out"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_in_progress`, `line_not_active` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_in_progress",
                     *         "message": "Call in progress"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    speakOnCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Hi! Your appointment is confirmed for Tuesday at 10:00.",
                 *       "wait_for_response": false,
                 *       "timeout_seconds": 30
                 *     }
                 */
                "application/json": {
                    text: string;
                    /** @default false */
                    wait_for_response?: boolean;
                    /** @default 30 */
                    timeout_seconds?: number;
                };
            };
        };
        responses: {
            /** @description Unwrapped `{call_id, spoke, interrupted, partial_response_text, interruption_reason, timed_out, call_ended, response_text, response_timestamp}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *       "spoke": true,
                     *       "interrupted": true,
                     *       "partial_response_text": "Hi, this is Acme Dental calling about",
                     *       "interruption_reason": "caller_interrupted_control",
                     *       "timed_out": true,
                     *       "call_ended": true,
                     *       "response_text": "Yes, Tuesday works for me.",
                     *       "response_timestamp": 1768469400000
                     *     }
                     */
                    "application/json": components["schemas"]["SpeakResult"];
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_found",
                     *         "message": "Call not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_active`: the call is not in progress; `wait_in_progress`: another request is already waiting for the caller */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_active",
                     *         "message": "Call not active"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many requests on this call at once (Temporal’s per-workflow limits); `Retry-After` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `carrier_error`: the carrier refused to speak (the call goes on; a carrier that says the call has ended is `interruption_reason: call_ended`), for a reason no other code names. `details`: `{field: "provider", message: "twilio" | "telnyx" | "simulator"}` and, when the provider gave one, `{field: "provider_code", message: <its code>}` (Twilio’s error code, Telnyx’s `errors[0].code`, the simulator’s HTTP status). Nothing was done. Sending it again unchanged gets the same answer until the cause is settled with the carrier (often by the operator: an address or regulatory documents for a country). */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "carrier_error",
                     *         "message": "Carrier error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the call service is unreachable or overloaded; `Retry-After` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "service_unavailable",
                     *         "message": "Service unavailable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    waitOnCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "timeout_seconds": 30
                 *     }
                 */
                "application/json": {
                    /** @default 30 */
                    timeout_seconds?: number;
                };
            };
        };
        responses: {
            /** @description Unwrapped `{call_id, timed_out, call_ended, response_text, response_timestamp}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *       "timed_out": true,
                     *       "call_ended": true,
                     *       "response_text": "Yes, Tuesday works for me.",
                     *       "response_timestamp": 1768469400000
                     *     }
                     */
                    "application/json": components["schemas"]["WaitResult"];
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_found",
                     *         "message": "Call not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_active`: the call is not in progress; `wait_in_progress`: another request is already waiting for the caller */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_active",
                     *         "message": "Call not active"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many requests on this call at once (Temporal’s per-workflow limits); `Retry-After` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the call service is unreachable or overloaded; `Retry-After` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "service_unavailable",
                     *         "message": "Service unavailable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    pressOnCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "digits": "123#"
                 *     }
                 */
                "application/json": {
                    digits: string;
                };
            };
        };
        responses: {
            /** @description Unwrapped `{call_id, pressed, digits}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *       "pressed": true,
                     *       "digits": "123#"
                     *     }
                     */
                    "application/json": components["schemas"]["PressResult"];
                };
            };
            /** @description `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_json",
                     *         "message": "Invalid json"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_found",
                     *         "message": "Call not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_active`: the call is not in progress, or the carrier says it has ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_active",
                     *         "message": "Call not active"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many requests on this call at once (Temporal’s per-workflow limits); `Retry-After` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `carrier_error`: the carrier refused the digits, for a reason no other code names. `details`: `{field: "provider", message: "twilio" | "telnyx" | "simulator"}` and, when the provider gave one, `{field: "provider_code", message: <its code>}` (Twilio’s error code, Telnyx’s `errors[0].code`, the simulator’s HTTP status). Nothing was done. Sending it again unchanged gets the same answer until the cause is settled with the carrier (often by the operator: an address or regulatory documents for a country). */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "carrier_error",
                     *         "message": "Carrier error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the call service is unreachable or overloaded; `Retry-After` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "service_unavailable",
                     *         "message": "Service unavailable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    transferCall: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "to_number": "+14155550123"
                 *     }
                 */
                "application/json": {
                    to_number: components["schemas"]["PhoneNumber"];
                };
            };
        };
        responses: {
            /** @description Unwrapped `{call_id, to_number, transferred, failure_reason}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "call_id": "0919e30d-6868-4f03-ae66-c2e13874460b",
                     *       "to_number": "+14155550123",
                     *       "transferred": true,
                     *       "failure_reason": null
                     *     }
                     */
                    "application/json": components["schemas"]["TransferResult"];
                };
            };
            /** @description `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `number_opted_out`, `consent_required`, `transfer_zone_not_allowed`, `m3_fraud_block`, `agent_permission_denied`, `forbidden` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "number_opted_out",
                     *         "message": "Number opted out"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_found",
                     *         "message": "Call not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `call_not_active`: the call is not in progress (or is being or was transferred); `transfer_not_supported` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "call_not_active",
                     *         "message": "Call not active"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many requests on this call at once (Temporal’s per-workflow limits); `Retry-After` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `carrier_error`: the carrier refused the transfer (a carrier that says the call has ended is `failure_reason: call_ended`), for a reason no other code names. `details`: `{field: "provider", message: "twilio" | "telnyx" | "simulator"}` and, when the provider gave one, `{field: "provider_code", message: <its code>}` (Twilio’s error code, Telnyx’s `errors[0].code`, the simulator’s HTTP status). Nothing was done. Sending it again unchanged gets the same answer until the cause is settled with the carrier (often by the operator: an address or regulatory documents for a country). */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "carrier_error",
                     *         "message": "Carrier error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the call service is unreachable or overloaded; `Retry-After` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "service_unavailable",
                     *         "message": "Service unavailable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCampaignContactLists: {
        parameters: {
            query?: {
                limit?: number;
                /** @description `next_cursor` of the previous page (or an ISO timestamp) */
                cursor?: string | unknown | unknown | unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{contact_lists, has_more, next_cursor}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "contact_lists": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "rows": 1,
                     *           "columns": [
                     *             "example"
                     *           ],
                     *           "skipped": {
                     *             "invalid_number": 1,
                     *             "duplicate_number": 1
                     *           },
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "expires_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "has_more": true,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": {
                        contact_lists: components["schemas"]["ContactList"][];
                        has_more: boolean;
                        /** @description Pass as `cursor` for the next page; null on the last */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    uploadCampaignContactList: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description A CSV file (RFC 4180, UTF-8, a BOM and CRLF, LF or CR line ends allowed) whose first line is the header. `phone_number` (required) is the number to call; a `metadata.<key>` column is the contact’s metadata under that key; every other column is a variable of that name (a letter or _, then letters, digits or _) filling the `{{name}}` placeholders of the campaign’s texts. An empty cell gives no value. At most 100000 rows; blank lines are ignored. A row whose number is not a phone number, or repeats an earlier row’s, is recorded at the campaign’s creation as a skipped contact (`invalid_number`, `duplicate_number`), not refused here. */
        requestBody: {
            content: {
                /**
                 * @example phone_number,first_name,appointment,metadata.patient_id
                 *     +14155550123,Ada,Tuesday 9:00,p-1042
                 */
                "text/csv": string;
            };
        };
        responses: {
            /** @description `{contact_list}` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "contact_list": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "rows": 1,
                     *         "columns": [
                     *           "example"
                     *         ],
                     *         "skipped": {
                     *           "invalid_number": 1,
                     *           "duplicate_number": 1
                     *         },
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "expires_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        contact_list: components["schemas"]["ContactList"];
                    };
                };
            };
            /** @description `duplicate_idempotency_key_header` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused` or `idempotency_in_progress` (with `Retry-After: 1`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "idempotency_key_reused",
                     *         "message": "Idempotency key reused"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: the body is not `text/csv` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unsupported_media_type",
                     *         "message": "Unsupported media type"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error`: each problem names its place, `columns.<n>` (the header’s n-th column, from 1), `rows.<n>` or `rows.<n>.<column>` (the n-th data row, from 1, as the campaign’s results number contacts; the message gives the file’s line). At most 50 are listed, then one (`rows`) counting the others. Also `body` when the file is empty or not UTF-8. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCampaignContactList: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The list’s `id`, as its upload answered it
                 * @example a5614527-0ce6-43be-ad1d-d012b7394867
                 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{contact_list}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "contact_list": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "rows": 1,
                     *         "columns": [
                     *           "example"
                     *         ],
                     *         "skipped": {
                     *           "invalid_number": 1,
                     *           "duplicate_number": 1
                     *         },
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "expires_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        contact_list: components["schemas"]["ContactList"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteCampaignContactList: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The list’s `id`, as its upload answered it
                 * @example a5614527-0ce6-43be-ad1d-d012b7394867
                 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{contact_list, deleted}`: the list as it was */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "contact_list": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "rows": 1,
                     *         "columns": [
                     *           "example"
                     *         ],
                     *         "skipped": {
                     *           "invalid_number": 1,
                     *           "duplicate_number": 1
                     *         },
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "expires_at": "2026-01-15T09:30:00.000Z"
                     *       },
                     *       "deleted": true
                     *     }
                     */
                    "application/json": {
                        contact_list: components["schemas"]["ContactList"];
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCampaigns: {
        parameters: {
            query?: {
                limit?: number;
                /** @description `next_cursor` of the previous page (or an ISO timestamp) */
                cursor?: string | unknown | unknown | unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{campaigns, has_more, next_cursor}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "campaigns": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "name": "Front desk",
                     *           "status": "completed",
                     *           "paused_reason": "insufficient_credits",
                     *           "line_ids": [
                     *             "d642c82d-1644-41fa-a990-58a5c03e264e"
                     *           ],
                     *           "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *           "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *           "max_duration_seconds": 600,
                     *           "machine_detection": "detect",
                     *           "answering_machine": {
                     *             "action": "hang_up",
                     *             "voicemail_message": "example"
                     *           },
                     *           "start_at": "2026-01-15T09:30:00.000Z",
                     *           "max_concurrency": 1,
                     *           "calls_per_minute": 1,
                     *           "retry": {
                     *             "max_attempts": 1,
                     *             "backoff_seconds": 1,
                     *             "on": [
                     *               "busy"
                     *             ]
                     *           },
                     *           "progress": {
                     *             "total": 1,
                     *             "pending": 1,
                     *             "dialing": 1,
                     *             "done": 1,
                     *             "answered": 1,
                     *             "voicemail": 1,
                     *             "machine": 1,
                     *             "busy": 1,
                     *             "no_answer": 1,
                     *             "failed": 0,
                     *             "skipped": 1,
                     *             "cancelled": 1
                     *           },
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "updated_at": "2026-01-15T09:30:00.000Z",
                     *           "ended_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "has_more": true,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": {
                        campaigns: components["schemas"]["Campaign"][];
                        has_more: boolean;
                        /** @description Pass as `cursor` for the next page; null on the last */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createCampaign: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Front desk",
                 *       "line_ids": [
                 *         "d642c82d-1644-41fa-a990-58a5c03e264e"
                 *       ],
                 *       "contacts": [
                 *         {
                 *           "to_number": "+14155550123",
                 *           "variables": {
                 *             "first_name": "Ada"
                 *           },
                 *           "metadata": {
                 *             "order_id": "ord_1234"
                 *           }
                 *         }
                 *       ],
                 *       "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                 *       "begin_message": "Hello, this is Acme Dental. How can I help?",
                 *       "max_duration_seconds": 600,
                 *       "machine_detection": "disabled",
                 *       "answering_machine": {
                 *         "action": "voicemail",
                 *         "voicemail_message": "Hello, this is Acme Dental about your appointment. Please call us back."
                 *       },
                 *       "start_at": "2026-01-15T09:30:00.000Z",
                 *       "max_concurrency": 1,
                 *       "calls_per_minute": 1,
                 *       "retry": {
                 *         "max_attempts": 1,
                 *         "backoff_seconds": 600,
                 *         "on": [
                 *           "busy"
                 *         ]
                 *       }
                 *     }
                 */
                "application/json": {
                    name?: string;
                    line_ids: string[];
                    /** @description The contacts, in list order; or `contact_list_id` instead (exactly one of the two) */
                    contacts?: {
                        /** @description The number to call, E.164. One that is not a phone number, or repeats an earlier contact’s, is recorded as skipped (`invalid_number`, `duplicate_number`). */
                        to_number: string;
                        /**
                         * @description Values for the `{{name}}` placeholders of the call’s system_prompt and begin_message, for this call only. Each must be used, and every placeholder then needs a value (422 `variables.<name>`); without `variables` the texts are used as written.
                         * @example {
                         *       "first_name": "Ada"
                         *     }
                         */
                        variables?: {
                            [key: string]: string;
                        };
                        /**
                         * @description Your own key-value pairs (up to 50 keys of up to 40 characters, string values up to 500): kept on the call and echoed as `metadata` in every event of the call.
                         * @example {
                         *       "order_id": "ord_1234"
                         *     }
                         */
                        metadata?: {
                            [key: string]: string;
                        };
                    }[];
                    /**
                     * Format: uuid
                     * @description A contact list uploaded as CSV (`POST /api/v1/campaigns/contact-lists`), instead of `contacts`: its rows become the contacts in file order (422 `contact_list_id` when it is not this workspace’s or has expired)
                     */
                    contact_list_id?: string;
                    /** @description Each call is a hosted conversation about this topic (as `POST /api/v1/calls/conversation`); without it the lines’ modes decide. */
                    topic?: string;
                    begin_message?: string;
                    max_duration_seconds?: number;
                    /**
                     * @default disabled
                     * @enum {string}
                     */
                    machine_detection?: "detect" | "disabled";
                    /**
                     * @description When a machine answers (machine detection is then asked for): `hang_up` at once (outcome `machine`), or `voicemail`: once the machine’s greeting has ended (its beep, as the carrier detects it; at most 30 s after the machine was detected), speak `voicemail_message` (required with it) to its end, then hang up (outcome `voicemail`). The call’s `end_cause` is `answering_machine`. Without it, a machine’s answer goes on as the line decides.
                     * @example {
                     *       "action": "voicemail",
                     *       "voicemail_message": "Hello, this is Acme Dental about your appointment. Please call us back."
                     *     }
                     */
                    answering_machine?: {
                        /** @enum {string} */
                        action: "hang_up" | "voicemail";
                        voicemail_message?: string;
                    };
                    /**
                     * Format: date-time
                     * @description When dialling starts (default: now)
                     */
                    start_at?: string;
                    max_concurrency?: number;
                    calls_per_minute?: number;
                    retry?: {
                        /** @default 1 */
                        max_attempts?: number;
                        /** @default 600 */
                        backoff_seconds?: number;
                        on?: ("busy" | "no_answer" | "failed")[];
                    };
                };
            };
        };
        responses: {
            /** @description `{campaign}` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "campaign": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "name": "Front desk",
                     *         "status": "completed",
                     *         "paused_reason": "insufficient_credits",
                     *         "line_ids": [
                     *           "d642c82d-1644-41fa-a990-58a5c03e264e"
                     *         ],
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "max_duration_seconds": 600,
                     *         "machine_detection": "detect",
                     *         "answering_machine": {
                     *           "action": "hang_up",
                     *           "voicemail_message": "example"
                     *         },
                     *         "start_at": "2026-01-15T09:30:00.000Z",
                     *         "max_concurrency": 1,
                     *         "calls_per_minute": 1,
                     *         "retry": {
                     *           "max_attempts": 1,
                     *           "backoff_seconds": 1,
                     *           "on": [
                     *             "busy"
                     *           ]
                     *         },
                     *         "progress": {
                     *           "total": 1,
                     *           "pending": 1,
                     *           "dialing": 1,
                     *           "done": 1,
                     *           "answered": 1,
                     *           "voicemail": 1,
                     *           "machine": 1,
                     *           "busy": 1,
                     *           "no_answer": 1,
                     *           "failed": 0,
                     *           "skipped": 1,
                     *           "cancelled": 1
                     *         },
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "updated_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        campaign: components["schemas"]["Campaign"];
                    };
                };
            };
            /** @description `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused` or `idempotency_in_progress` (with `Retry-After: 1`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "idempotency_key_reused",
                     *         "message": "Idempotency key reused"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the campaign could not be started (nothing recorded); `Retry-After` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "service_unavailable",
                     *         "message": "Service unavailable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{campaign}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "campaign": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "name": "Front desk",
                     *         "status": "completed",
                     *         "paused_reason": "insufficient_credits",
                     *         "line_ids": [
                     *           "d642c82d-1644-41fa-a990-58a5c03e264e"
                     *         ],
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "max_duration_seconds": 600,
                     *         "machine_detection": "detect",
                     *         "answering_machine": {
                     *           "action": "hang_up",
                     *           "voicemail_message": "example"
                     *         },
                     *         "start_at": "2026-01-15T09:30:00.000Z",
                     *         "max_concurrency": 1,
                     *         "calls_per_minute": 1,
                     *         "retry": {
                     *           "max_attempts": 1,
                     *           "backoff_seconds": 1,
                     *           "on": [
                     *             "busy"
                     *           ]
                     *         },
                     *         "progress": {
                     *           "total": 1,
                     *           "pending": 1,
                     *           "dialing": 1,
                     *           "done": 1,
                     *           "answered": 1,
                     *           "voicemail": 1,
                     *           "machine": 1,
                     *           "busy": 1,
                     *           "no_answer": 1,
                     *           "failed": 0,
                     *           "skipped": 1,
                     *           "cancelled": 1
                     *         },
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "updated_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        campaign: components["schemas"]["Campaign"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCampaignResults: {
        parameters: {
            query?: {
                limit?: number;
                /** @description `next_cursor` of the previous page (the last row number it returned) */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{results, has_more, next_cursor}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "results": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "row": 1,
                     *           "to_number": "+14155550123",
                     *           "status": "pending",
                     *           "outcome": "answered",
                     *           "skip_reason": "invalid_number",
                     *           "attempts": 1,
                     *           "next_attempt_at": "2026-01-15T09:30:00.000Z",
                     *           "duration_sec": 125,
                     *           "charge_cents": 12,
                     *           "call_ids": [
                     *             "2c38d818-fca6-495b-af6f-d65d273f01b9"
                     *           ],
                     *           "variables": {},
                     *           "metadata": {},
                     *           "updated_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "has_more": true,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": {
                        results: components["schemas"]["CampaignContactResult"][];
                        has_more: boolean;
                        /** @description Pass as `cursor` for the next page; null on the last */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportCampaignResults: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The results, one record per contact */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example example */
                    "text/csv": string;
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    pauseCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{campaign}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "campaign": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "name": "Front desk",
                     *         "status": "completed",
                     *         "paused_reason": "insufficient_credits",
                     *         "line_ids": [
                     *           "d642c82d-1644-41fa-a990-58a5c03e264e"
                     *         ],
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "max_duration_seconds": 600,
                     *         "machine_detection": "detect",
                     *         "answering_machine": {
                     *           "action": "hang_up",
                     *           "voicemail_message": "example"
                     *         },
                     *         "start_at": "2026-01-15T09:30:00.000Z",
                     *         "max_concurrency": 1,
                     *         "calls_per_minute": 1,
                     *         "retry": {
                     *           "max_attempts": 1,
                     *           "backoff_seconds": 1,
                     *           "on": [
                     *             "busy"
                     *           ]
                     *         },
                     *         "progress": {
                     *           "total": 1,
                     *           "pending": 1,
                     *           "dialing": 1,
                     *           "done": 1,
                     *           "answered": 1,
                     *           "voicemail": 1,
                     *           "machine": 1,
                     *           "busy": 1,
                     *           "no_answer": 1,
                     *           "failed": 0,
                     *           "skipped": 1,
                     *           "cancelled": 1
                     *         },
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "updated_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        campaign: components["schemas"]["Campaign"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `campaign_ended` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "campaign_ended",
                     *         "message": "Campaign ended"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resumeCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{campaign}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "campaign": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "name": "Front desk",
                     *         "status": "completed",
                     *         "paused_reason": "insufficient_credits",
                     *         "line_ids": [
                     *           "d642c82d-1644-41fa-a990-58a5c03e264e"
                     *         ],
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "max_duration_seconds": 600,
                     *         "machine_detection": "detect",
                     *         "answering_machine": {
                     *           "action": "hang_up",
                     *           "voicemail_message": "example"
                     *         },
                     *         "start_at": "2026-01-15T09:30:00.000Z",
                     *         "max_concurrency": 1,
                     *         "calls_per_minute": 1,
                     *         "retry": {
                     *           "max_attempts": 1,
                     *           "backoff_seconds": 1,
                     *           "on": [
                     *             "busy"
                     *           ]
                     *         },
                     *         "progress": {
                     *           "total": 1,
                     *           "pending": 1,
                     *           "dialing": 1,
                     *           "done": 1,
                     *           "answered": 1,
                     *           "voicemail": 1,
                     *           "machine": 1,
                     *           "busy": 1,
                     *           "no_answer": 1,
                     *           "failed": 0,
                     *           "skipped": 1,
                     *           "cancelled": 1
                     *         },
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "updated_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        campaign: components["schemas"]["Campaign"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `campaign_ended` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "campaign_ended",
                     *         "message": "Campaign ended"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{campaign}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "campaign": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "name": "Front desk",
                     *         "status": "completed",
                     *         "paused_reason": "insufficient_credits",
                     *         "line_ids": [
                     *           "d642c82d-1644-41fa-a990-58a5c03e264e"
                     *         ],
                     *         "topic": "Confirm the patient’s appointment on Tuesday at 10:00",
                     *         "begin_message": "Hello, this is Acme Dental. How can I help?",
                     *         "max_duration_seconds": 600,
                     *         "machine_detection": "detect",
                     *         "answering_machine": {
                     *           "action": "hang_up",
                     *           "voicemail_message": "example"
                     *         },
                     *         "start_at": "2026-01-15T09:30:00.000Z",
                     *         "max_concurrency": 1,
                     *         "calls_per_minute": 1,
                     *         "retry": {
                     *           "max_attempts": 1,
                     *           "backoff_seconds": 1,
                     *           "on": [
                     *             "busy"
                     *           ]
                     *         },
                     *         "progress": {
                     *           "total": 1,
                     *           "pending": 1,
                     *           "dialing": 1,
                     *           "done": 1,
                     *           "answered": 1,
                     *           "voicemail": 1,
                     *           "machine": 1,
                     *           "busy": 1,
                     *           "no_answer": 1,
                     *           "failed": 0,
                     *           "skipped": 1,
                     *           "cancelled": 1
                     *         },
                     *         "created_at": "2026-01-15T09:30:00.000Z",
                     *         "updated_at": "2026-01-15T09:30:00.000Z",
                     *         "ended_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        campaign: components["schemas"]["Campaign"];
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `campaign_ended` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "campaign_ended",
                     *         "message": "Campaign ended"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                 *       "to": "+14155550123",
                 *       "text": "Hi! Your appointment is confirmed for Tuesday at 10:00."
                 *     }
                 */
                "application/json": {
                    /** Format: uuid */
                    line_id: string;
                    to: components["schemas"]["PhoneNumber"];
                    text: string;
                };
            };
        };
        responses: {
            /** @description The message, unwrapped */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *       "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *       "direction": "outbound",
                     *       "from": "+14155550100",
                     *       "to": "+14155550123",
                     *       "text": "Hi! Your appointment is confirmed for Tuesday at 10:00.",
                     *       "status": "delivered",
                     *       "segments": 1,
                     *       "charge_cents": 12,
                     *       "error_code": null,
                     *       "timestamp": "2026-01-15T09:30:00.000Z",
                     *       "created_at": "2026-01-15T09:30:00.000Z",
                     *       "updated_at": "2026-01-15T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Message"];
                };
            };
            /** @description `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_credits` or `agent_cap_exceeded` */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "insufficient_credits",
                     *         "message": "Insufficient credits"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `number_opted_out`, `conversation_window_expired`, `agent_scope_error`, `agent_permission_denied`, `forbidden` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "number_opted_out",
                     *         "message": "Number opted out"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `line_not_active` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "line_not_active",
                     *         "message": "Line not active"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendLineSms: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @example a5614527-0ce6-43be-ad1d-d012b7394867 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "to_number": "+14155550123",
                 *       "message": "This call may be recorded for quality purposes."
                 *     }
                 */
                "application/json": {
                    to_number: components["schemas"]["PhoneNumber"];
                    message: string;
                };
            };
        };
        responses: {
            /** @description `{sms}` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "sms": {
                     *         "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *         "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *         "from_number": "+14155550100",
                     *         "to_number": "+14155550123",
                     *         "message": "This call may be recorded for quality purposes.",
                     *         "status": "delivered",
                     *         "created_at": "2026-01-15T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        sms: components["schemas"]["LegacySms"];
                    };
                };
            };
            /** @description `duplicate_idempotency_key_header`; `invalid_json` (not JSON, or nested deeper than 32 levels) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "duplicate_idempotency_key_header",
                     *         "message": "Duplicate idempotency key header"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_credits` or `agent_cap_exceeded` */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "insufficient_credits",
                     *         "message": "Insufficient credits"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `number_opted_out`, `conversation_window_expired`, `agent_scope_error`, `agent_permission_denied`, `forbidden` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "number_opted_out",
                     *         "message": "Number opted out"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `line_not_active` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "line_not_active",
                     *         "message": "Line not active"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body exceeds `x-body-limit-bytes` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "payload_too_large",
                     *         "message": "Payload too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listConversations: {
        parameters: {
            query?: {
                line_id?: string;
                limit?: number;
                /** @description `next_cursor` of the previous page (or an ISO timestamp) */
                cursor?: string | unknown | unknown | unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{conversations, has_more, next_cursor}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "conversations": [
                     *         {
                     *           "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *           "phone_number": "+14155550123",
                     *           "line_phone_number": "+14155550100",
                     *           "message_count": 4,
                     *           "last_message_at": "2026-01-15T09:30:00.000Z",
                     *           "last_message_text": "See you Tuesday.",
                     *           "last_message_direction": "inbound"
                     *         }
                     *       ],
                     *       "has_more": true,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": {
                        conversations: components["schemas"]["Conversation"][];
                        has_more: boolean;
                        /** @description Pass as `cursor` for the next page; null on the last */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getConversation: {
        parameters: {
            query?: {
                limit?: number;
                /** @description `next_cursor` of the previous page (or an ISO timestamp) */
                cursor?: string | unknown | unknown | unknown;
            };
            header?: never;
            path: {
                /** @example c44b6211-b917-476f-a781-fdfb1e2d6273 */
                lineId: string;
                /**
                 * @description Percent-encoded (`%2B14155550123`)
                 * @example +14155550123
                 */
                phoneNumber: components["schemas"]["PhoneNumber"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `{messages, has_more, next_cursor}` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "messages": [
                     *         {
                     *           "id": "a5614527-0ce6-43be-ad1d-d012b7394867",
                     *           "line_id": "c44b6211-b917-476f-a781-fdfb1e2d6273",
                     *           "direction": "outbound",
                     *           "from": "+14155550100",
                     *           "to": "+14155550123",
                     *           "text": "Hi! Your appointment is confirmed for Tuesday at 10:00.",
                     *           "status": "delivered",
                     *           "segments": 1,
                     *           "charge_cents": 12,
                     *           "error_code": null,
                     *           "timestamp": "2026-01-15T09:30:00.000Z",
                     *           "created_at": "2026-01-15T09:30:00.000Z",
                     *           "updated_at": "2026-01-15T09:30:00.000Z"
                     *         }
                     *       ],
                     *       "has_more": true,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": {
                        messages: components["schemas"]["Message"][];
                        has_more: boolean;
                        /** @description Pass as `cursor` for the next page; null on the last */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description `unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unauthorized",
                     *         "message": "Missing Authorization header; send `Authorization: Bearer <API_KEY>`"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "forbidden",
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: the line */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "Not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `validation_error` with one detail per invalid field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "validation_error",
                     *         "message": "The request has invalid fields",
                     *         "details": [
                     *           {
                     *             "field": "name",
                     *             "message": "Required"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`, with `Retry-After` in seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "rate_limited",
                     *         "message": "Too many requests; retry after the number of seconds in Retry-After"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "internal_error",
                     *         "message": "An unexpected error occurred; it has been logged with the request id"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
