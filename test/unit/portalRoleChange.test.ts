import { ROLE_PRESETS, ROLES, SCOPES } from '../../src/domain/keys/scopes';
import { OWNER_ABILITIES, roleChangeWords, SCOPE_ABILITIES } from '../../api/portal/roleChange';

/** A role change's confirmation (issue 30, item 3) says what the person gains or loses, from the presets themselves. */
describe('role change words', () => {
  it('names every scope in words, each differently', () => {
    const words = SCOPES.map((scope) => SCOPE_ABILITIES[scope]);
    expect(words.every((word) => word.length > 0)).toBe(true);
    expect(new Set(words).size).toBe(SCOPES.length);
  });

  it('a promotion gains exactly what the demotion back loses', () => {
    for (const from of ROLES)
      for (const to of ROLES) {
        const there = roleChangeWords(from, to);
        const back = roleChangeWords(to, from);
        expect({ from, to, gained: there.gained }).toEqual({ from, to, gained: back.lost });
      }
  });

  it('member to admin gains the scopes a member lacks; admin to member narrows keys and revokes its invitations; owner powers are owners’', () => {
    const promoted = roleChangeWords('member', 'admin');
    const lacking = ROLE_PRESETS.admin.filter((scope) => !ROLE_PRESETS.member.includes(scope));
    expect(promoted.gained).toEqual(lacking.map((scope) => SCOPE_ABILITIES[scope]));
    expect(promoted).toMatchObject({ lost: [], narrowsKeys: false, invitationsRevokedFor: [] });
    expect(roleChangeWords('admin', 'member')).toMatchObject({ narrowsKeys: true, invitationsRevokedFor: ['admin', 'member'] });
    expect(roleChangeWords('owner', 'admin')).toEqual({
      gained: [],
      lost: [...OWNER_ABILITIES],
      narrowsKeys: false,
      invitationsRevokedFor: ['owner'],
    });
  });
});
