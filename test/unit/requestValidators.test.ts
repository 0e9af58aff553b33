import { compileOperation } from '../../api/openapi/validator';
import { allRoutes } from '../../api/routes';

/**
 * The API compiles an operation's validators on its first request (api/openapi/validator.ts), not at start-up:
 * this is where a schema ajv cannot compile is caught, for every route, before any process serves it.
 */
describe('request validators', () => {
  const routes = allRoutes(() => '');

  it.each(routes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))('%s compiles', (_name, route) => {
    const compiled = compileOperation(route.doc);
    expect(compiled.pathParams.every((param) => param.in === 'path')).toBe(true);
    expect(compiled.validateBody === undefined).toBe(compiled.bodySpec === undefined);
  });

  it('refuses what the schema refuses once compiled (a path id that is not a UUID)', () => {
    const withId = routes.find((route) => route.path === '/api/v1/lines/{id}' && route.method === 'get');
    expect(withId).toBeDefined();
    const { validatePath } = compileOperation(withId!.doc);
    expect(validatePath({ id: 'not-a-uuid' })).toBe(false);
    expect(validatePath({ id: '3f1e2d4c-5b6a-4798-8a7b-1c2d3e4f5a6b' })).toBe(true);
  });
});
