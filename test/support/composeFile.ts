import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { projectRoot } from '../../src/platform/config';
import { dockerStages, readDockerfile, stageEnv } from './dockerfile';

/**
 * Reads docker-compose.yml the way Docker Compose does, for tests that cannot run Docker: YAML with
 * merge keys (`<<: *anchor`) resolved, then variable interpolation of every string value.
 */

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string | number>;
  ports?: unknown[];
  profiles?: string[];
  depends_on?: Record<string, { condition?: string; required?: boolean }>;
  healthcheck?: { test?: string[] };
  restart?: string;
  configs?: Array<{ source: string; target: string }>;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  configs?: Record<string, { content?: string }>;
  [extension: string]: unknown;
}

/** One `$...` reference of Compose interpolation, classified by the form the tests allow. */
export interface VariableReference {
  raw: string;
  name: string;
  /** `${X:?message}`: set and non-empty or Compose stops; `${X:-fallback}`: the fallback when unset or empty. */
  kind: 'required' | 'fallback' | 'other';
  fallback?: string;
}

const REFERENCE = /\$\$|\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
const BRACED = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:\?|:-|\?|-|:\+|\+)([\s\S]*))?$/;

/** Every variable reference in a text (`$$`, Compose's escaped dollar, is none). */
export function variableReferences(text: string): VariableReference[] {
  const found: VariableReference[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    if (match[0] === '$$') continue;
    if (match[2] !== undefined) {
      found.push({ raw: match[0], name: match[2], kind: 'other' });
      continue;
    }
    const parts = BRACED.exec(match[1]);
    if (!parts) {
      found.push({ raw: match[0], name: match[1], kind: 'other' });
      continue;
    }
    const kind = parts[2] === ':?' && parts[3] ? 'required' : parts[2] === ':-' ? 'fallback' : 'other';
    found.push({ raw: match[0], name: parts[1], kind, fallback: kind === 'fallback' ? parts[3] : undefined });
  }
  return found;
}

/**
 * Compose interpolation of one value, with `valueOf` standing for the `.env` file. Only the two
 * forms the tests allow are resolved; any other form throws, so nothing is silently misread.
 */
export function interpolate(value: string, valueOf: (name: string) => string): string {
  return value.replace(REFERENCE, (raw) => {
    if (raw === '$$') return '$';
    const reference = variableReferences(raw)[0];
    if (reference.kind === 'required') return valueOf(reference.name);
    if (reference.kind === 'fallback') return reference.fallback ?? '';
    throw new Error(`unsupported interpolation ${raw}: use \${NAME:?message} or \${NAME:-fallback}`);
  });
}

function interpolateAll(node: unknown, valueOf: (name: string) => string): unknown {
  if (typeof node === 'string') return interpolate(node, valueOf);
  if (Array.isArray(node)) return node.map((item) => interpolateAll(item, valueOf));
  if (node && typeof node === 'object')
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, interpolateAll(value, valueOf)]));
  return node;
}

export function readComposeFile(file = path.join(projectRoot, 'docker-compose.yml')): {
  text: string;
  /** Merge keys resolved, variables not interpolated. */
  raw: ComposeFile;
  interpolated: (valueOf: (name: string) => string) => ComposeFile;
} {
  const text = fs.readFileSync(file, 'utf8');
  const raw = YAML.parse(text, { merge: true }) as ComposeFile;
  return { text, raw, interpolated: (valueOf) => interpolateAll(raw, valueOf) as ComposeFile };
}

/** `ENV A=1 \ B=2` lines of the Dockerfile's runtime (last) stage: the base environment of every app container. */
export function dockerfileEnv(file = path.join(projectRoot, 'Dockerfile')): Record<string, string> {
  return stageEnv(dockerStages(readDockerfile(file)).at(-1)!);
}
