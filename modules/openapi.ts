import { z } from 'zod';
import { ERROR_STATUS } from '../core/errors';
import { API_KEY_PREFIX } from '../core/principal';
import { allRoutes } from './catalogue';
import { pathParameters, type AnyRoute } from './routes';
import type { JsonSchema } from './schema';

/**
 * The OpenAPI 3.1 document of the dashboard API, generated from the route declarations
 * (3.1 uses JSON Schema 2020-12, which zod writes directly). Built once per process.
 */
const built = new Map<string, Record<string, unknown>>();

/** The document for the server at `origin` (its `servers` entry); built once per origin. */
export function openApiDocument(origin: string): Record<string, unknown> {
  let document = built.get(origin);
  if (!document) built.set(origin, document = buildDocument(allRoutes(), origin));
  return document;
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/** The refusals a route may answer, by status, each naming its stable codes (core/errors.ts), with the one error body. */
const ERROR_RESPONSES: Record<string, unknown> = Object.fromEntries(
  Object.entries(Object.entries(ERROR_STATUS).reduce<Record<number, string[]>>((byStatus, [code, status]) => {
    if (status >= 400 && status < 500) (byStatus[status] ??= []).push(code);
    return byStatus;
  }, {})).map(([status, codes]) => [status, errorResponse(codes.join(' or '))]),
);

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

function operationOf(route: AnyRoute): Record<string, unknown> {
  const query = schemaOf(route.query, 'input');
  const params = schemaOf(route.params, 'input');
  const parameters = [
    ...pathParameters(route.path).map((name) => ({ name, in: 'path', required: true, schema: (params.properties as Record<string, JsonSchema>)[name] ?? { type: 'string' } })),
    ...Object.entries((query.properties ?? {}) as Record<string, JsonSchema>).map(([name, schema]) => ({
      name, in: 'query', required: ((query.required ?? []) as string[]).includes(name), schema,
    })),
  ];
  const operation: Record<string, unknown> = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/^\/api/, '').replace(/\{([a-zA-Z]+)\}/g, 'By_$1').replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: route.summary,
    tags: [route.module],
    security: [{ bearer: [route.scope] }],
    'x-steward-scope': route.scope,
    parameters,
    responses: {
      [route.method === 'POST' ? '201' : '200']: { description: 'Success', content: { 'application/json': { schema: schemaOf(route.response, 'output') } } },
      ...ERROR_RESPONSES,
      default: { description: 'An error: code, message and hint', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
  if (route.curatedTool) operation['x-steward-curated-tool'] = route.curatedTool;
  if (route.method !== 'GET') {
    operation.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } };
    (operation.parameters as unknown[]).push({ name: 'X-Action-Summary', in: 'header', required: false, schema: { type: 'string', maxLength: 500 } });
  }
  return operation;
}

function buildDocument(routes: readonly AnyRoute[], origin: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationOf(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Steward dashboard API', version: '1', description: `Every module's dashboard routes (${routes.length}). Each call runs as a durable tool call of the module's invoke bridge.` },
    servers: [{ url: origin, description: 'This Steward server' }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: `An API key (${API_KEY_PREFIX}…) or an OAuth access token` } },
      schemas: {
        Error: {
          type: 'object',
          properties: {
            ok: { const: false },
            error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, hint: { type: 'string' } }, required: ['code', 'message'] },
          },
          required: ['ok', 'error'],
        },
      },
    },
  };
}
