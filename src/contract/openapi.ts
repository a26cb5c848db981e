import type { TSchema } from 'typebox';
import { routes } from './routes.js';
import type { RouteDef } from './route.js';
import { ErrorEnvelope } from './errors.js';

/** Plain JSON Schema (TypeBox adds symbol keys; JSON round-trip drops them). */
const plain = (s: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(s));

function scopeText(r: RouteDef): string {
  if (r.scope === 'public') return 'No key needed.';
  if (r.scope === null) return 'Any valid key.';
  if (typeof r.scope === 'string') return `Scope: ${r.scope}.`;
  return 'anyOf' in r.scope ? `Scope: one of ${r.scope.anyOf.join(', ')}.` : `Scopes: ${r.scope.allOf.join(' and ')}.`;
}

/**
 * The version of the API this contract implements (spec, Versioning: "The API version is 0.2.0").
 * It is not the package's version: a release that changes no route keeps it.
 */
export const API_VERSION = '0.2.0';

/**
 * The OpenAPI 3.1 document, generated from the same route table and schemas the server uses.
 * `info.version` is the API's version; the daemon's own version is `x-mailagent-version`.
 */
export function openApiDocument(serverVersion: string, serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [id, r] of Object.entries(routes) as [string, RouteDef][]) {
    const path = '/v1' + r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [where, schema] of [['path', r.params], ['query', r.query]] as const) {
      const props = (schema ? plain(schema).properties : undefined) as Record<string, unknown> | undefined;
      const required = new Set((schema ? (plain(schema).required as string[] | undefined) : undefined) ?? []);
      for (const [name, s] of Object.entries(props ?? {})) {
        parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: s });
      }
    }
    if (r.send) parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } });
    const op: Record<string, unknown> = {
      operationId: id,
      summary: r.summary,
      description: scopeText(r) + (r.unboundOnly ? ` Agent-bound keys cannot ${r.unboundOnly}.` : ''),
      tags: [id.split('.')[0]],
      parameters,
      responses: {
        [String(r.status)]: {
          description: 'Success',
          content: { [r.produces ?? 'application/json']: { schema: r.response ? plain(r.response) : {} } },
        },
        default: { description: 'Error envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
      },
      ...(r.scope === 'public' ? { security: [] } : {}),
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: plain(r.body) } } };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mailagent — Agent Email Service API', version: API_VERSION, 'x-mailagent-version': serverVersion,
      description: 'Every path is also served under /api/v1.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'mk_live_… or mk_test_…' } },
      schemas: { ErrorEnvelope: plain(ErrorEnvelope) },
    },
    paths,
  };
}
