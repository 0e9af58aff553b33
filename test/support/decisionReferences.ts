import fs from 'node:fs';
import path from 'node:path';

/**
 * What the decisions log (docs/decisions/, read as one text: readDecisionsLog) names in the repository, read as its
 * index's header says (issue 27):
 * - a code span holding a repository path is a path reference: a span starting with one of REPOSITORY_ROOTS and a
 *   slash (`src/domain/keys/cache.ts`, `test/histories/`), or a file name with an extension and no slash, which names
 *   the root's file of that name (`docker-compose.yml`) or else the one file of that name in the repository
 *   (`holds.ts`; a name several files share is refused); it may end in `:line` or `:first-last`, and may hold a `*`
 *   glob in its last segment.
 *   Placeholders (`<`, `{`) are conventions, not paths, and are not read.
 * - a code span holding an identifier (`name`, `name()`, `Type.member`) names a symbol of a path when written in one
 *   of four ways: `symbol` in `path`, `symbol` (`path`), (`symbol`, `path`), or `path` (`symbol`).
 */
export const REPOSITORY_ROOTS = [
  'activities',
  'api',
  'bench',
  'deploy',
  'dev',
  'docs',
  'sdk',
  'simulator',
  'src',
  'test',
  'workflows',
] as const;

export interface DecisionReference {
  /** 1-based line of the log's text the path's code span is on (readDecisionsLog's `locate` names its file). */
  line: number;
  /** The `## ` heading the reference is under ('' before the first). */
  section: string;
  /** The path as written, without its line range. */
  path: string;
  lineRange?: { first: number; last: number };
  /** Identifiers the text ties to this path. */
  symbols: string[];
}

interface CodeSpan {
  text: string;
  start: number;
  end: number;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?$/;
const FILE_NAME = /^[\w.-]+\.(?:ts|js|mjs|cjs|json|md|yml|yaml|sh|sql|txt|html|css)$/;
const LINE_RANGE = /^(.*?):(\d+)(?:-(\d+))?$/;

function pathOf(span: string): { path: string; lineRange?: DecisionReference['lineRange'] } | undefined {
  const ranged = LINE_RANGE.exec(span);
  const bare = ranged ? ranged[1]! : span;
  if (/[\s<>{}…]|\.\.\./.test(bare)) return undefined;
  const underRoot = REPOSITORY_ROOTS.some((root) => bare.startsWith(`${root}/`));
  if (!underRoot && !FILE_NAME.test(bare)) return undefined;
  if (!ranged) return { path: bare };
  const first = Number(ranged[2]);
  return { path: bare, lineRange: { first, last: ranged[3] ? Number(ranged[3]) : first } };
}

/** The references of a decisions log, in the order they are written. */
export function decisionReferences(markdown: string): DecisionReference[] {
  const spans: CodeSpan[] = [];
  for (const match of markdown.matchAll(/`([^`\n]+)`/g)) {
    spans.push({ text: match[1]!, start: match.index, end: match.index + match[0].length });
  }
  const lines = markdown.split('\n');
  const lineStarts: number[] = [];
  const sections: string[] = [];
  let offset = 0;
  let section = '';
  for (const text of lines) {
    lineStarts.push(offset);
    offset += text.length + 1;
    if (text.startsWith('## ')) section = text.slice(3).trim();
    sections.push(section);
  }
  /** 1-based line holding `at` (the last line starting at or before it). */
  const lineOf = (at: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (lineStarts[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  const sectionOf = (line: number) => sections[line - 1]!;
  const between = (a: CodeSpan, b: CodeSpan) => markdown.slice(a.end, b.start);
  const symbolOf = (span: CodeSpan | undefined) => (span && IDENTIFIER.test(span.text) ? span.text : undefined);

  const references: DecisionReference[] = [];
  spans.forEach((span, index) => {
    const found = pathOf(span.text);
    if (!found) return;
    const symbols: string[] = [];
    const before = spans[index - 1];
    const after = spans[index + 1];
    const symbolBefore = symbolOf(before);
    if (before && symbolBefore) {
      const gap = between(before, span);
      const parenthesisedPair = /^,\s*$/.test(gap) && markdown[before.start - 1] === '(';
      if (/^\s+in\s+$/.test(gap) || /^\s*\(\s*$/.test(gap) || parenthesisedPair) symbols.push(symbolBefore);
    }
    const symbolAfter = symbolOf(after);
    if (after && symbolAfter && /^\s*\(\s*$/.test(between(span, after))) symbols.push(symbolAfter);
    const line = lineOf(span.start);
    references.push({ line, section: sectionOf(line), ...found, symbols });
  });
  return references;
}

/** The repository's files by file name (under REPOSITORY_ROOTS), read once per root. */
const filesByName = new Map<string, Map<string, string[]>>();
function repositoryFilesNamed(root: string, name: string): string[] {
  let index = filesByName.get(root);
  if (!index) {
    index = new Map();
    for (const folder of REPOSITORY_ROOTS)
      for (const file of filesNamed(root, { path: `${folder}/` })) {
        const named = index.get(path.basename(file)) ?? [];
        named.push(file);
        index.set(path.basename(file), named);
      }
    filesByName.set(root, index);
  }
  return index.get(name) ?? [];
}

/**
 * The files a bare file name (no slash) stands for: the root's file of that name, else every repository file of
 * that name (one is a reference; several are an ambiguity the log must resolve by writing the path).
 */
export function filesOfBareName(root: string, name: string): string[] {
  const atRoot = path.join(root, name);
  return fs.existsSync(atRoot) ? [atRoot] : repositoryFilesNamed(root, name);
}

/** Every file a reference's path names: the file itself, each file under a directory, each match of a glob. */
export function filesNamed(root: string, reference: Pick<DecisionReference, 'path'>): string[] {
  if (!reference.path.includes('/')) return filesOfBareName(root, reference.path);
  const target = path.join(root, reference.path);
  if (reference.path.includes('*')) {
    const directory = path.dirname(target);
    if (!fs.existsSync(directory)) return [];
    const pattern = new RegExp(
      `^${path
        .basename(target)
        .replace(/[.+?^$()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*')}$`,
    );
    return fs
      .readdirSync(directory)
      .filter((name) => pattern.test(name))
      .map((name) => path.join(directory, name));
  }
  if (!fs.existsSync(target)) return [];
  if (!fs.statSync(target).isDirectory()) return [target];
  return fs
    .readdirSync(target, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * A file's text as a symbol is looked for in it: a script without its comments (a name left only in a comment
 * is a name the code no longer has), any other file whole. `//` after a colon is a URL, not a comment.
 */
function codeOf(file: string): string {
  const text = fs.readFileSync(file, 'utf8');
  if (!/\.(?:ts|js|mjs|cjs)$/.test(file)) return text;
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

/** Whether an identifier (each part of a dotted one) occurs as a whole word in a text. */
export function mentions(text: string, symbol: string): boolean {
  return symbol
    .replace(/\(\)$/, '')
    .split('.')
    .every((part) => new RegExp(`(?<![\\w$])${part.replace(/\$/g, '\\$')}(?![\\w$])`).test(text));
}

/** A path the log names that is meant not to exist in the repository, in one section only, and why. */
export interface AllowedAbsence {
  path: string;
  /** The `## ` heading it may be named under; absent: anywhere (a document kept outside the repository). */
  section?: string;
  reason: string;
}

/**
 * Everything wrong with a log's references, one line each (`decisions.md:<line>: …`): a path that does not exist (or
 * a line range past the file's end), a symbol its path does not contain, an allowed absence that now exists or is no
 * longer named in its section.
 */
export function referenceProblems(markdown: string, root: string, allowed: readonly AllowedAbsence[] = []): string[] {
  const problems: string[] = [];
  const references = decisionReferences(markdown);
  for (const reference of references) {
    const at = `decisions.md:${reference.line}`;
    const excused = allowed.find((entry) => entry.path === reference.path && (entry.section ?? reference.section) === reference.section);
    const files = filesNamed(root, reference);
    if (excused) {
      if (files.length) problems.push(`${at}: \`${reference.path}\` exists, but the test allows it as absent: drop that entry`);
      continue;
    }
    if (!files.length) {
      problems.push(`${at}: \`${reference.path}\` does not exist`);
      continue;
    }
    if (!reference.path.includes('/') && files.length > 1) {
      const paths = files.map((file) => path.relative(root, file)).join(', ');
      problems.push(`${at}: \`${reference.path}\` is the name of ${files.length} files (${paths}): write the path`);
      continue;
    }
    if (reference.lineRange && reference.lineRange.last > fs.readFileSync(files[0]!, 'utf8').split('\n').length)
      problems.push(`${at}: \`${reference.path}\` has no line ${reference.lineRange.last}`);
    if (!reference.symbols.length) continue;
    const code = files.map(codeOf).join('\n');
    for (const symbol of reference.symbols)
      if (!mentions(code, symbol)) problems.push(`${at}: \`${symbol}\` does not occur in \`${reference.path}\``);
  }
  for (const entry of allowed)
    if (!references.some((reference) => reference.path === entry.path && (entry.section ?? reference.section) === reference.section))
      problems.push(
        `\`${entry.path}\` is allowed as absent${entry.section ? ` in "${entry.section}"` : ''}, but the log no longer names it there: drop that entry`,
      );
  return problems;
}

/** A name in code style: camelCase or PascalCase with an inner capital, or SCREAMING_SNAKE_CASE (`fooBar`, `FooBar`, `FOO_BAR`). */
const CODE_NAME = /^(?:[a-z][a-z0-9]*[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)$/;

/** The last part of every code-style name the log writes in a code span (`a.b.fooBar()` → `fooBar`), with its first line. */
export function codeNames(markdown: string): Map<string, number> {
  const names = new Map<string, number>();
  markdown.split('\n').forEach((text, index) => {
    for (const match of text.matchAll(/`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\(\))?`/g)) {
      const name = match[1]!.split('.').pop()!;
      if (CODE_NAME.test(name) && !names.has(name)) names.set(name, index + 1);
    }
  });
  return names;
}

/** The log's own checker: its allowances name what the code does not have, so it is not code a name may live in. */
const CHECKER_FILES = ['test/unit/decisionsLog.test.ts', 'test/support/decisionReferences.ts'];

/** Recorded histories and vendored fixtures (other systems' schemas and examples): text, not the project's code. */
function vendored(file: string): boolean {
  return file.includes(`${path.sep}histories${path.sep}`) || file.includes(`${path.sep}test${path.sep}fixtures${path.sep}`);
}

/**
 * Every file whose code a code-style name may live in: the code folders (recorded histories, vendored fixtures and
 * the checker aside) and the root's configuration.
 */
function codeFiles(root: string): string[] {
  const checker = new Set(CHECKER_FILES.map((file) => path.join(root, file)));
  const files = ['docker-compose.yml', 'Dockerfile', 'package.json', '.dependency-cruiser.cjs', 'eslint.config.mjs', 'tsconfig.json']
    .map((name) => path.join(root, name))
    .filter((file) => fs.existsSync(file));
  for (const folder of REPOSITORY_ROOTS) {
    if (folder === 'docs') continue;
    for (const file of filesNamed(root, { path: `${folder}/` }))
      if (!vendored(file) && !file.endsWith('.md') && !checker.has(file)) files.push(file);
  }
  return files;
}

/**
 * Code-style names the log writes (in a code span) that no code of the repository contains, comments aside, one line
 * each; `allowed` names the ones that are not the project's own (another system's, or historical), each with why.
 */
export function codeNameProblems(markdown: string, root: string, allowed: Readonly<Record<string, string>> = {}): string[] {
  const code = codeFiles(root).map(codeOf).join('\n');
  const words = new Set(code.match(/[A-Za-z_$][\w$]*/g));
  const problems: string[] = [];
  const names = codeNames(markdown);
  for (const [name, line] of names) {
    if (name in allowed) {
      if (words.has(name)) problems.push(`\`${name}\` is in the code now, but the test allows it as absent: drop that entry`);
    } else if (!words.has(name)) problems.push(`decisions.md:${line}: \`${name}\` occurs in no code of the repository`);
  }
  for (const name of Object.keys(allowed))
    if (!names.has(name)) problems.push(`\`${name}\` is allowed as absent, but the log no longer names it: drop that entry`);
  return problems;
}

/** Where the decisions log lives: an index (README.md) and one file per topic. */
export const DECISIONS_DIR = 'docs/decisions';

/**
 * The decisions log as one text (the index first, then the topic files by name), and `locate`, which turns a
 * problem's `decisions.md:<line>` into the file and line it is on.
 */
export function readDecisionsLog(root: string): { markdown: string; files: string[]; locate: (problem: string) => string } {
  const dir = path.join(root, DECISIONS_DIR);
  const topics = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .sort();
  const files = ['README.md', ...topics];
  const origins: string[] = [];
  const texts = files.map((file) => {
    const text = fs.readFileSync(path.join(dir, file), 'utf8').replace(/\n+$/, '');
    text.split('\n').forEach((_, index) => origins.push(`${DECISIONS_DIR}/${file}:${index + 1}`));
    return text;
  });
  const locate = (problem: string) => problem.replace(/^decisions\.md:(\d+):/, (_, line: string) => `${origins[Number(line) - 1]}:`);
  return { markdown: texts.join('\n'), files, locate };
}
