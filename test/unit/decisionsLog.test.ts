import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/platform/config';
import {
  codeNameProblems,
  decisionReferences,
  DECISIONS_DIR,
  readDecisionsLog,
  REPOSITORY_ROOTS,
  referenceProblems,
  type AllowedAbsence,
} from '../support/decisionReferences';

/**
 * The decisions log names the files and symbols each decision lives in; a rename that leaves the log behind makes a
 * newcomer read about code that is not there (issue 27, item 5). The conventions the log is read with are in its
 * header and in test/support/decisionReferences.ts.
 */

/** Paths the log names that are not in the repository, on purpose. Keep this list short: rewrite the log instead. */
const ALLOWED_ABSENCES: readonly AllowedAbsence[] = [
  { path: 'service-interface.md', reason: 'the spec: kept beside the repository (the shared spec folder), not in it' },
  { path: 'wire-shapes.md', reason: "the public client's wire shapes: kept beside the spec, not in the repository" },
  {
    path: 'activities/carrierEnvironment.ts',
    section: 'Test keys on every carrier: Telnyx per environment, the simulator for test traffic (issue 26)',
    reason: 'historical: the entry records that issue 26 removed it',
  },
];

/** Code-style names the log writes that are not in the project's code, on purpose: another system's, or historical. */
const FOREIGN_OR_HISTORICAL_NAMES: Readonly<Record<string, string>> = {
  ListWorkflowExecutions: "Temporal frontend's API call, which the namespace wait's answer comes from",
  RestException: "the twilio package's error class, which its client parses for us",
  RecordingListParams: 'the telnyx package type cited as the source of a request shape',
  proxyUrl: 'a Scalar option deliberately left unset',
  ValidityPeriod: "Twilio's message parameter (in its vendored API description only), whose maximum the sweeper keeps to",
  passAccessToken: "the Temporal UI's OIDC setting, named as what the codec endpoint does not verify",
  TWILIO_TEST_MESSAGING_SERVICE_SID: 'a setting considered and rejected',
  startCarrierSimulator: 'historical: the entry records its rename to startSimulator',
  createCarrierSimulatorApp: 'historical: the entry records its rename to createSimulatorApp',
  TELNYX_TRANSCRIPTION_LANGUAGE: 'historical: the entries record its removal in issue 26',
  carrierServesTestEnvironment: 'historical: the entry records its removal in issue 26',
  authenticateRegularKey: 'historical: the entry records its replacement by authenticateMcp in issue 29',
};

describe('docs/decisions/ names what exists', () => {
  const log = readDecisionsLog(projectRoot);
  const { markdown } = log;

  it('every repository path and every symbol tied to one exists, and each allowed absence is still needed', () => {
    expect(referenceProblems(markdown, projectRoot, ALLOWED_ABSENCES).map(log.locate)).toEqual([]);
  });

  it('every code-style name it writes (`fooBar`, `FooBar`, `FOO_BAR`) occurs in the code, but for a listed few', () => {
    expect(codeNameProblems(markdown, projectRoot, FOREIGN_OR_HISTORICAL_NAMES).map(log.locate)).toEqual([]);
  });

  it('reads the log as intended: hundreds of paths, dozens of symbols, every root a directory', () => {
    const references = decisionReferences(markdown);
    expect(references.length).toBeGreaterThan(200);
    expect(references.flatMap((reference) => reference.symbols).length).toBeGreaterThan(40);
    for (const root of REPOSITORY_ROOTS) expect(fs.statSync(path.join(projectRoot, root)).isDirectory()).toBe(true);
  });

  it('the index links every topic file and every section of each, and each section stands in one topic only (issue 28)', () => {
    const index = fs.readFileSync(path.join(projectRoot, DECISIONS_DIR, 'README.md'), 'utf8');
    const seen = new Map<string, string>();
    for (const file of log.files.slice(1)) {
      expect(index).toContain(`](${file})`);
      const text = fs.readFileSync(path.join(projectRoot, DECISIONS_DIR, file), 'utf8');
      const sections = [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]!.trim());
      expect(sections.length).toBeGreaterThan(0);
      for (const section of sections) {
        expect([file, seen.get(section) ?? file]).toEqual([file, file]);
        seen.set(section, file);
        expect(index).toContain(`[${section}](${file}#`);
      }
    }
  });
});

describe('reading a decisions log', () => {
  /** A throwaway repository: a file with a symbol and three lines, two files of one name, a README at the root. */
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'decisions-log-'));
    fs.mkdirSync(path.join(root, 'src/domain/keys'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src/domain/keys/cache.ts'), 'export class KeyCache {}\nexport const TTL = 1; // TTL_MS\n');
    fs.writeFileSync(path.join(root, 'README.md'), '# readme\n');
    fs.mkdirSync(path.join(root, 'src/domain/lines'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src/domain/keys/store.ts'), 'export {};\n');
    fs.writeFileSync(path.join(root, 'src/domain/lines/store.ts'), 'export {};\n');
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('ties a symbol to a path in each of the four written forms', () => {
    const forms = [
      'The cache (`KeyCache` in `src/domain/keys/cache.ts`).',
      'The cache, `KeyCache` (`src/domain/keys/cache.ts`).',
      'The cache (`KeyCache`, `src/domain/keys/cache.ts`).',
      'The cache, `src/domain/keys/cache.ts` (`KeyCache`).',
    ];
    for (const form of forms) {
      expect(decisionReferences(form)).toEqual([expect.objectContaining({ path: 'src/domain/keys/cache.ts', symbols: ['KeyCache'] })]);
      expect(referenceProblems(form, root)).toEqual([]);
    }
    // A symbol split from its path by a line break is still tied to it.
    expect(decisionReferences('- `KeyCache` in\n  `src/domain/keys/cache.ts`')[0]!.symbols).toEqual(['KeyCache']);
    // Identifiers beside a path in other words are not claims about it.
    expect(decisionReferences('`KeyCache` and `src/domain/keys/cache.ts`')[0]!.symbols).toEqual([]);
  });

  it('reports a renamed file, a renamed symbol, a line range past the end, and a bare file name naming no file or several', () => {
    const log = [
      '## Keys',
      '- Cached (`KeyCache` in `src/domain/keys/cache.ts`), see `src/domain/keys/cache.ts:2`.',
      '- Gone: `src/domain/keys/keyCache.ts`, `KeyStore` (`src/domain/keys/cache.ts`), `src/domain/keys/cache.ts:3-9`.',
      '- Bare names: `README.md` is at the root, `KeyCache` (`cache.ts`) the one such file, `store.ts` two, `gone.ts` none.',
    ].join('\n');
    expect(referenceProblems(log, root)).toEqual([
      'decisions.md:3: `src/domain/keys/keyCache.ts` does not exist',
      'decisions.md:3: `KeyStore` does not occur in `src/domain/keys/cache.ts`',
      'decisions.md:3: `src/domain/keys/cache.ts` has no line 9',
      'decisions.md:4: `store.ts` is the name of 2 files (src/domain/keys/store.ts, src/domain/lines/store.ts): write the path',
      'decisions.md:4: `gone.ts` does not exist',
    ]);
  });

  it('leaves placeholders, commands and paths outside the repository alone', () => {
    const log = 'Use cases in `src/domain/<area>/rules.ts`; run `node src/main/cli.ts`; data in `.data/runtime.json`.';
    expect(decisionReferences(log)).toEqual([]);
  });

  it('reports a code-style name no code contains, comments aside, and an allowance no longer needed', () => {
    const log = 'The cache is `KeyCache`; its time is `TTL_MS`, once `keyCacheTtl`; `OldName` was renamed; `plain` words pass.';
    expect(codeNameProblems(log, root, { OldName: 'historical', KeyCache: 'wrongly listed' })).toEqual([
      '`KeyCache` is in the code now, but the test allows it as absent: drop that entry',
      'decisions.md:1: `TTL_MS` occurs in no code of the repository',
      'decisions.md:1: `keyCacheTtl` occurs in no code of the repository',
    ]);
  });

  it('excuses an allowed absence only in its section, and reports the entry once it is not needed', () => {
    const log = '## Old\n- `src/gone.ts` was removed.\n## New\n- `src/gone.ts` is used.';
    const allowed = [{ path: 'src/gone.ts', section: 'Old', reason: 'historical' }];
    expect(referenceProblems(log, root, allowed)).toEqual(['decisions.md:4: `src/gone.ts` does not exist']);
    expect(referenceProblems('## New\n- nothing', root, allowed)).toEqual([
      '`src/gone.ts` is allowed as absent in "Old", but the log no longer names it there: drop that entry',
    ]);
  });
});
