import { z } from 'zod';
import { queryValue, readVia, routesFor } from '../../routes';
import { DEFAULT_MIN_SIMILARITY } from './search';
import { semanticSearchContactsTool } from './tools';

/**
 * Search that understands meaning as a dashboard route (reached by people_invoke_api_read,
 * /api/people/semantic-search and the OpenAPI document); it answers what
 * people_semantic_search_contacts answers, restricted notes searched only with people:safeguarding.
 */
const routes = routesFor('people', { read: 'people:read', write: 'people:write' });

export const semanticRoutes = [
  routes.get('semantic-search', {
    summary: 'Contacts found from a request in everyday words: the field rules read from it, and free text searched by meaning or full text',
    query: z.object({
      query: z.string().trim().min(2).max(500),
      limit: queryValue.integer(1, 100).default(25),
      minSimilarity: z.coerce.number().min(0).max(1).default(DEFAULT_MIN_SIMILARITY),
    }).strict(),
    ...readVia(semanticSearchContactsTool),
  }),
];
