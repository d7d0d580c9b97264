import type { Queryable } from '../../db/pool';
import { contributionsTo } from '../registry';

/**
 * Where the templates module needs other modules' answers, it declares an extension point here and
 * they fill it from their definitions (`contributes`): templates imports none of the modules that use it.
 */

/** Records of another module that still need a template (channels: broadcasts waiting, approved, scheduled or sending). */
export interface TemplateUsage {
  countUsing(db: Queryable, orgId: string, templateId: string): Promise<number>;
}

declare module '../module' {
  interface ModuleContributions {
    templatesInUse?: TemplateUsage;
  }
}

/** How many records of every contributing module still need the template; archiving waits until none do. */
export async function countTemplateUses(db: Queryable, orgId: string, templateId: string): Promise<number> {
  let using = 0;
  for (const usage of contributionsTo('templatesInUse')) using += await usage.countUsing(db, orgId, templateId);
  return using;
}
