import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import YAML from 'yaml';
import { projectRoot } from '../../src/platform/config';

/**
 * The Kubernetes API's own schemas for the objects a chart renders, vendored in test/fixtures/kubernetes (README there
 * says from where): the OpenAPI v3 documents of one Kubernetes release, one per API group version, and the CRDs of the
 * custom resources the chart may render (the Prometheus Operator's ServiceMonitor). A manifest is checked against the
 * schema of its apiVersion and kind, strictly: a field the API does not know is an error, as `kubectl apply
 * --validate=strict` (the default since 1.25) refuses it.
 */
export const KUBERNETES_SCHEMA_VERSION = '1.35';

const DIR = path.join(projectRoot, 'test/fixtures/kubernetes');

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

type Schema = Record<string, unknown>;

/**
 * Object schemas that list their properties refuse any other (what the API server's strict field validation does);
 * `x-kubernetes-preserve-unknown-fields` and schemas that state additionalProperties keep theirs.
 */
function strict(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(strict);
  if (!node || typeof node !== 'object') return;
  const schema = node as Schema;
  if (
    schema.properties &&
    typeof schema.properties === 'object' &&
    schema.additionalProperties === undefined &&
    schema['x-kubernetes-preserve-unknown-fields'] !== true
  )
    schema.additionalProperties = false;
  for (const value of Object.values(schema)) strict(value);
}

export class KubernetesSchemas {
  private readonly ajv: Ajv;
  /** `group/version/kind` → the schema's reference. */
  private readonly refs = new Map<string, string>();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor() {
    // Strict mode is about authoring a schema; these are Kubernetes' own, with its OpenAPI extensions (x-kubernetes-*).
    this.ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(this.ajv);
    this.ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
    this.ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
    this.ajv.addFormat('int-or-string', true);
    const versionDir = path.join(DIR, `v${KUBERNETES_SCHEMA_VERSION}`);
    for (const file of fs.readdirSync(versionDir).filter((name) => name.endsWith('_openapi.json'))) {
      const document = JSON.parse(fs.readFileSync(path.join(versionDir, file), 'utf8')) as {
        components: { schemas: Record<string, Schema> };
      };
      strict(document.components.schemas);
      const id = `k8s-${KUBERNETES_SCHEMA_VERSION}/${file}`;
      this.ajv.addSchema({ $id: id, components: document.components });
      for (const [name, schema] of Object.entries(document.components.schemas)) {
        const kinds = (schema['x-kubernetes-group-version-kind'] ?? []) as Array<{ group: string; version: string; kind: string }>;
        for (const gvk of kinds) {
          const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
          // Every group's document repeats the core and meta schemas: the owning group's document is enough.
          if (!this.refs.has(key)) this.refs.set(key, `${id}#/components/schemas/${name}`);
        }
      }
    }
    for (const file of fs.readdirSync(DIR).filter((name) => name.endsWith('.yaml'))) {
      const crd = YAML.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as {
        spec: { group: string; names: { kind: string }; versions: Array<{ name: string; schema: { openAPIV3Schema: Schema } }> };
      };
      for (const version of crd.spec.versions) {
        const schema = structuredClone(version.schema.openAPIV3Schema);
        strict(schema);
        const id = `crd/${crd.spec.group}/${version.name}/${crd.spec.names.kind}`;
        this.ajv.addSchema({ ...schema, $id: id });
        this.refs.set(`${crd.spec.group}/${version.name}/${crd.spec.names.kind}`, id);
      }
    }
  }

  /** The kinds there is a schema for, as `group/version/kind` (the core group is ''). */
  kinds(): string[] {
    return [...this.refs.keys()];
  }

  /** The schema's errors for this manifest (none: valid); a kind without a schema is an error too. */
  validate(manifest: Manifest): ErrorObject[] | string {
    const [group, version] = manifest.apiVersion.includes('/') ? manifest.apiVersion.split('/') : ['', manifest.apiVersion];
    const key = `${group}/${version}/${manifest.kind}`;
    const ref = this.refs.get(key);
    if (!ref) return `no schema for ${manifest.apiVersion} ${manifest.kind} (Kubernetes ${KUBERNETES_SCHEMA_VERSION})`;
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.getSchema(ref);
      if (!validate) throw new Error(`schema ${ref} did not compile`);
      this.compiled.set(ref, validate);
    }
    return validate(manifest) ? [] : (validate.errors ?? []);
  }
}
