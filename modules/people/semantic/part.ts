import type { ModulePart } from '../../module';
import { semantic } from './migrations/2026.11.28T15.10.00.semantic';
import { semanticModels } from './models';
import { semanticRoutes } from './routes';
import { refreshEmbeddings } from './search';
import { semanticTools } from './tools';

/** Search that understands meaning: requests read into explainable segment rules, free text by meaning or full text, similar contacts. */
export const semanticPart: ModulePart = {
  name: 'semantic',
  tools: semanticTools,
  routes: semanticRoutes,
  models: [...semanticModels],
  migrations: [semantic],
  // Cached embeddings are derived from the contact's text: a merge drops them (a trigger; re-embedded on the next search), erasure deletes them.
  jobs: [{
    name: 'people.semantic_embeddings',
    description: 'Embeds contacts whose notes or interests changed, for search by meaning (only with an embeddings provider configured)',
    everyMs: 15 * 60_000,
    run: refreshEmbeddings,
  }],
  contactRefs: [{ table: 'contact_text_embeddings', column: 'contact_id', onMerge: 'move', onErase: 'delete' }],
};
