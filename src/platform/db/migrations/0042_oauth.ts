import type { Knex } from 'knex';

/**
 * Issue 29, OAuth 2.1 for /mcp (docs/decisions/keys.md "OAuth 2.1 for the MCP endpoint (issue 29)"):
 * - `oauth_clients`: dynamically registered public clients (RFC 7591); no secrets;
 * - `oauth_authorization_requests`: an authorization request waiting for its person's sign-in and consent;
 * - `oauth_grants`: a person's consent: the delegated key it minted (its plaintext sealed with SECRETS_KEY,
 *   src/platform/crypto/secretBox.ts), the client and the resource; revoking it ends every token of it;
 * - `oauth_codes` and `oauth_tokens`: authorization codes, access and refresh tokens, SHA-256 only, each
 *   bound to its grant (the token family) and resource; a refresh token is consumed when rotated.
 * Every token is looked up by its digest; nothing here lets a leaked table row be presented as a token.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_clients', (t) => {
    t.text('client_id').primary();
    t.text('client_name').notNullable();
    t.specificType('redirect_uris', 'text[]').notNullable();
    t.jsonb('metadata').notNullable();
    t.text('registered_from');
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('oauth_authorization_requests', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('request_hash').notNullable().unique();
    t.text('client_id').notNullable().references('oauth_clients.client_id');
    t.text('redirect_uri').notNullable();
    t.text('code_challenge').notNullable();
    t.text('state');
    t.specificType('scopes', 'text[]').notNullable();
    t.text('resource').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
  });
  await knex.schema.createTable('oauth_grants', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('environment').notNullable();
    t.text('client_id').notNullable().references('oauth_clients.client_id');
    t.uuid('user_id').notNullable().references('users.id');
    t.uuid('key_id').notNullable().references('api_keys.id');
    t.text('key_sealed').notNullable();
    t.text('resource').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_reason');
    t.index(['key_id']);
    t.index(['workspace_id', 'environment']);
  });
  await knex.schema.createTable('oauth_codes', (t) => {
    t.text('code_hash').primary();
    t.uuid('grant_id').notNullable().references('oauth_grants.id');
    t.text('client_id').notNullable();
    t.text('redirect_uri').notNullable();
    t.text('code_challenge').notNullable();
    t.text('resource').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
  });
  await knex.schema.createTable('oauth_tokens', (t) => {
    t.text('token_hash').primary();
    t.text('kind').notNullable();
    t.uuid('grant_id').notNullable().references('oauth_grants.id');
    t.text('client_id').notNullable();
    t.text('resource').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.index(['grant_id']);
  });
  await knex.raw(`alter table oauth_tokens add constraint oauth_tokens_kind check (kind in ('access', 'refresh'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('oauth_tokens');
  await knex.schema.dropTable('oauth_codes');
  await knex.schema.dropTable('oauth_grants');
  await knex.schema.dropTable('oauth_authorization_requests');
  await knex.schema.dropTable('oauth_clients');
}
