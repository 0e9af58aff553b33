/** The 13 scopes of the spec ("Authentication", rule 5), and the human role presets (rule 8). */
export const SCOPES = [
  'calls:create',
  'calls:control',
  'messages:create',
  'numbers:read',
  'numbers:provision',
  'numbers:release',
  'connections:read',
  'connections:write',
  'consent:write',
  'webhooks:write',
  'billing:read',
  'keys:admin',
  'read',
] as const;

export type Scope = (typeof SCOPES)[number];

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

const MEMBER_SCOPES: readonly Scope[] = [
  'calls:create',
  'calls:control',
  'messages:create',
  'numbers:read',
  'connections:read',
  'consent:write',
  'billing:read',
  'read',
];

export const ROLE_PRESETS: Readonly<Record<Role, readonly Scope[]>> = {
  owner: SCOPES,
  admin: SCOPES,
  member: MEMBER_SCOPES,
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function hasScope(granted: readonly string[], required: Scope): boolean {
  return granted.includes(required);
}
