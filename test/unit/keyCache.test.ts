import { KeyCache } from '../../src/domain/keys/cache';

const key = (id: string, ancestors: string[] = []) => ({ row: { id, ancestor_ids: ancestors }, ancestorsLapseAt: null });

describe('KeyCache', () => {
  it('drops a changed key and every key minted below it, and nothing else', () => {
    const cache = new KeyCache(60_000);
    cache.vouch(Infinity);
    cache.set('hash-root', key('root'));
    cache.set('hash-child', key('child', ['root']));
    cache.set('hash-grandchild', key('grandchild', ['root', 'child']));
    cache.set('hash-other', key('other'));
    cache.invalidate(['child']);
    expect(cache.get('hash-root')).toBeDefined();
    expect(cache.get('hash-child')).toBeUndefined();
    expect(cache.get('hash-grandchild')).toBeUndefined();
    expect(cache.get('hash-other')).toBeDefined();
    cache.detach();
  });

  it('stops trusting an entry after its TTL, and caches nothing with a TTL of 0', () => {
    const now = jest.spyOn(performance, 'now').mockReturnValue(1_000);
    const cache = new KeyCache(1_000);
    cache.vouch(Infinity);
    cache.set('h', key('k'));
    now.mockReturnValue(1_999);
    expect(cache.get('h')).toBeDefined();
    now.mockReturnValue(2_000);
    expect(cache.get('h')).toBeUndefined();
    const off = new KeyCache(0);
    off.vouch(Infinity);
    off.set('h', key('k'));
    expect(off.get('h')).toBeUndefined();
    now.mockRestore();
    cache.detach();
    off.detach();
  });

  it("serves nothing before its listener vouches, nor after the listener's word runs out, and keeps the entries meanwhile", () => {
    const now = jest.spyOn(performance, 'now').mockReturnValue(1_000);
    const cache = new KeyCache(60_000);
    cache.set('h', key('k'));
    expect(cache.get('h')).toBeUndefined();
    cache.vouch(2_000);
    expect(cache.get('h')).toBeDefined();
    now.mockReturnValue(2_000);
    expect(cache.get('h')).toBeUndefined();
    // A late heartbeat answer on the same connection vouches again: nothing was missed, the entry is still good.
    cache.vouch(3_000);
    expect(cache.get('h')).toBeDefined();
    now.mockRestore();
    cache.detach();
  });
});
