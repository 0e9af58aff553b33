import openapiTS, { astToString } from 'openapi-typescript';
import { API_VERSION } from '../../api/app';
import { buildOpenApiDocument } from '../../api/openapi/document';
import { allRoutes } from '../../api/routes';

/** Where the typed client's generated files live, relative to the repository root. */
export const SDK_SCHEMA_PATH = 'sdk/client/schema.d.ts';
export const SDK_OPERATIONS_PATH = 'sdk/client/operations.ts';

const HEADER = '// Generated from the served OpenAPI document by `npm run sdk:generate`. Do not edit: regenerate.\n';

/**
 * The typed client's two generated files, from the same document the API serves at
 * `/api/openapi.yaml`: the request and response types (openapi-typescript), and the operations
 * that honour `Idempotency-Key`, which the client needs at run time to retry a POST safely.
 */
export async function generateSdkFiles(): Promise<Record<string, string>> {
  const document = buildOpenApiDocument(
    allRoutes(() => ''),
    API_VERSION,
  );
  const schema = HEADER + astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]));
  const idempotent: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { parameters?: { name: string }[] }>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation.parameters?.some((p) => p.name === 'Idempotency-Key')) idempotent.push(`${method.toUpperCase()} ${path}`);
    }
  }
  const operations =
    HEADER +
    '\n/** `METHOD /path/{template}` of every operation that honours `Idempotency-Key` (replays the first answer for 12 h). */\n' +
    `export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set([\n${idempotent
      .sort()
      .map((op) => `  '${op}',\n`)
      .join('')}]);\n`;
  return { [SDK_SCHEMA_PATH]: schema, [SDK_OPERATIONS_PATH]: operations };
}
