import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workspaces', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('email').notNullable().unique();
    t.text('role').notNullable().checkIn(['owner', 'admin', 'member']);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.uuid('user_id').notNullable().references('users.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.text('kind').notNullable().checkIn(['standard', 'service']);
    t.text('name').notNullable();
    // Leading characters of the plaintext, shown in lists and used to find candidate rows.
    t.text('key_prefix').notNullable();
    // SHA-256 of the whole plaintext key; the plaintext itself is never stored.
    t.text('key_hash').notNullable().unique();
    t.specificType('scopes', 'text[]').notNullable();
    t.specificType('grant_numbers', 'text[]');
    t.bigInteger('spend_limit_cents');
    t.text('spend_reset_period').checkIn(['monthly']);
    t.text('permissions').notNullable().defaultTo('full');
    t.text('agent_label');
    t.uuid('line_id');
    t.bigInteger('monthly_cap_cents');
    t.uuid('parent_key_id').references('api_keys.id');
    t.uuid('created_by_service_key_id').references('api_keys.id');
    t.uuid('rotated_from').references('api_keys.id');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['key_prefix']);
    t.index(['workspace_id', 'environment']);
  });

  await knex.schema.createTable('payment_methods', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.uuid('user_id').notNullable().references('users.id');
    t.text('processor_token').notNullable();
    t.text('brand').notNullable();
    t.text('last4').notNullable();
    t.integer('exp_month').notNullable();
    t.integer('exp_year').notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'user_id']);
  });
  // At most one default card per user, enforced by the database rather than by read-then-write.
  await knex.raw('create unique index payment_methods_one_default on payment_methods (user_id) where is_default');

  await knex.schema.createTable('lines', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.uuid('user_id').notNullable().references('users.id');
    t.text('environment').notNullable().checkIn(['test', 'live']);
    t.text('name').notNullable();
    t.text('display_name');
    t.text('mode').notNullable().checkIn(['hosted', 'webhook', 'audio']);
    t.text('system_prompt');
    t.text('begin_message');
    t.text('voice');
    t.integer('context_limit');
    t.text('webhook_url');
    t.text('audio_handler_url');
    t.text('status_callback_url');
    t.boolean('recording_enabled').notNullable().defaultTo(false);
    t.boolean('compliance_enabled').notNullable().defaultTo(false);
    t.text('language').notNullable().defaultTo('multi');
    t.integer('endpointing_ms');
    t.text('phone_number');
    t.text('status').notNullable().checkIn(['provisioning', 'active', 'suspended', 'released']);
    t.text('failure_reason');
    t.timestamp('grace_ends_at', { useTz: true });
    t.uuid('created_by_key_id').references('api_keys.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('activated_at', { useTz: true });
    t.timestamp('released_at', { useTz: true });
    t.index(['workspace_id', 'environment', 'created_at']);
  });
  // A number belongs to at most one line that has not been released.
  await knex.raw(
    "create unique index lines_phone_number_in_use on lines (phone_number) where status <> 'released' and phone_number is not null",
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['lines', 'payment_methods', 'api_keys', 'users', 'workspaces']) {
    await knex.schema.dropTableIfExists(table);
  }
}
