import { API_VERSION } from '../../api/app';
import { buildOpenApiDocument, inlineRefs } from '../../api/openapi/document';
import { exampleOf } from '../../api/openapi/examples';
import { newAjv } from '../../api/openapi/validator';
import { allRoutes } from '../../api/routes';

type Media = { schema?: object; example?: unknown };
type Operation = {
  operationId: string;
  parameters?: Array<{ name: string; in: string; schema: object; example?: unknown }>;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
};

/**
 * Every operation of the served document carries an example of each path parameter, a request example (when it takes a body) and an
 * example of every response body, each valid against its own schema under the request validator's
 * ajv (formats included), so the reference page at /docs never shows an example the API would refuse.
 */
describe('OpenAPI examples', () => {
  const document = buildOpenApiDocument(
    allRoutes(() => ''),
    API_VERSION,
  ) as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } };
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
  );
  const ajv = newAjv(false);
  /** Why `example` does not fit `schema`, or undefined when it does. */
  function problemsOf(schema: object, example: unknown): string | undefined {
    const validate = ajv.compile(inlineRefs(schema, document.components.schemas));
    return validate(example) ? undefined : ajv.errorsText(validate.errors);
  }

  it('covers every operation of the document', () => {
    expect(operations.length).toBeGreaterThan(50);
  });

  it.each(operations.map((o) => [o.name, o.operation] as const))('%s has valid request and response examples', (_name, operation) => {
    const problems: string[] = [];
    const check = (where: string, media: Media) => {
      if (!('example' in media)) return problems.push(`${where}: no example`);
      if (!media.schema) return problems.push(`${where}: no schema`);
      const problem = problemsOf(media.schema, media.example);
      if (problem) problems.push(`${where}: ${problem}`);
    };
    for (const parameter of operation.parameters ?? []) if (parameter.in === 'path') check(`path ${parameter.name}`, parameter);
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) check(`request ${type}`, media);
    for (const [status, response] of Object.entries(operation.responses)) {
      // A 2xx without a body is only right for 204 No Content.
      if (status.startsWith('2') && status !== '204' && !response.content) problems.push(`${status}: no body documented`);
      for (const [type, media] of Object.entries(response.content ?? {})) check(`${status} ${type}`, media);
      const error = response.content?.['application/json']?.example as { error?: { code: string } } | undefined;
      // An error's example names the first code its description lists.
      if (!status.startsWith('2') && error?.error) expect(response.description).toContain(`\`${error.error.code}\``);
    }
    expect(problems).toEqual([]);
  });

  it('a 422 example lists the invalid field, as the validator answers', () => {
    const post = document.paths['/api/v1/lines'].post;
    expect(post.responses['422'].content?.['application/json'].example).toEqual({
      error: { code: 'validation_error', message: 'The request has invalid fields', details: [{ field: 'name', message: 'Required' }] },
    });
  });

  it('the check refuses an example that contradicts its schema', () => {
    const schema = { $ref: '#/components/schemas/Line' };
    const line = exampleOf(schema) as Record<string, unknown>;
    expect(problemsOf(schema, line)).toBeUndefined();
    expect(problemsOf(schema, { ...line, id: 'not-a-uuid' })).toMatch(/format "uuid"/);
    expect(problemsOf(schema, { ...line, mode: 'text' })).toMatch(/allowed values/);
  });
});
