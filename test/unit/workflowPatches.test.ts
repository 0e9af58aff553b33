import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { patches } from '../../workflows/patches';

/**
 * workflows/patches.ts is the one registry of the workflows' patch ids, each with its removal criterion. A patch id
 * is written into the history of every run that passes it, so renaming one, or checking a patch the registry does
 * not know, would leave running workflows and recorded histories behind.
 */
const root = path.resolve(__dirname, '../..');
const registry: Array<[string, string]> = Object.entries(patches);

const workflowSources = (): Array<{ file: string; text: string }> =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', 'workflows/*.ts'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file && file !== 'workflows/patches.ts' && fs.existsSync(path.join(root, file)))
    .map((file) => ({ file, text: fs.readFileSync(path.join(root, file), 'utf8') }));

/** The patch ids a recorded history's markers name (`core_patch` markers, their payload `{ id, deprecated }`). */
function recordedPatchIds(file: string): string[] {
  const history = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    events: Array<{
      markerRecordedEventAttributes?: { markerName: string; details: Record<string, { payloads: Array<{ data: string }> }> };
    }>;
  };
  return history.events.flatMap(({ markerRecordedEventAttributes: marker }) =>
    marker?.markerName === 'core_patch'
      ? marker.details['patch-data'].payloads.map((p) => (JSON.parse(Buffer.from(p.data, 'base64').toString()) as { id: string }).id)
      : [],
  );
}

describe('the patch registry (workflows/patches.ts)', () => {
  it('holds distinct ids, each checked by workflow code through its entry', () => {
    const ids = registry.map(([, id]) => id);
    expect(new Set(ids).size).toBe(ids.length);
    const checked = new Set(
      workflowSources().flatMap(({ text }) => [...text.matchAll(/\b(?:patched|deprecatePatch)\(patches\.(\w+)\)/g)].map((m) => m[1])),
    );
    expect(registry.map(([name]) => name).filter((name) => !checked.has(name))).toEqual([]);
  });

  it('is where every patch the workflows check is named: no id written in place, no constant of its own', () => {
    const isEntry = (argument: string) => /^patches\.\w+$/.test(argument) && argument.slice('patches.'.length) in patches;
    const elsewhere = workflowSources().flatMap(({ file, text }) =>
      [...text.matchAll(/\b(?:patched|deprecatePatch)\(([^)]*)\)/g)].filter((m) => !isEntry(m[1])).map((m) => `${file}: ${m[0]}`),
    );
    expect(elsewhere).toEqual([]);
  });

  it('knows every patch id a recorded history carries (an id never changes)', () => {
    const dir = path.join(root, 'test/histories');
    const recorded = new Set(
      fs
        .readdirSync(dir)
        .filter((file) => file.endsWith('.json'))
        .flatMap((file) => recordedPatchIds(path.join(dir, file))),
    );
    expect(recorded.size).toBeGreaterThan(0);
    const known = new Set(registry.map(([, id]) => id));
    expect([...recorded].filter((id) => !known.has(id))).toEqual([]);
  });

  it('says of every patch when it may be removed', () => {
    const source = fs.readFileSync(path.join(root, 'workflows/patches.ts'), 'utf8');
    const undated = registry
      .map(([name]) => name)
      .filter((name) => {
        const doc = source.slice(0, source.indexOf(`  ${name}: '`));
        return !/(Remove|goes with)[^]*\*\/\s*$/.test(doc.slice(doc.lastIndexOf('/**')));
      });
    expect(undated).toEqual([]);
  });
});
