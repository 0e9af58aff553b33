import type { RouteDef } from './types';
import { lineRoutes } from './lines';
import { systemRoutes } from './system';

/** The route table: every endpoint, its scope and its OpenAPI operation, in one list. */
export function allRoutes(openApiYaml: () => string): RouteDef[] {
  return [...systemRoutes(openApiYaml), ...lineRoutes()];
}
