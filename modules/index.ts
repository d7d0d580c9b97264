import { migrate, type Migration } from '../db/migrate';
import type { Pool } from '../db/pool';
import { seedPlanAllowances } from '../kernel/billing';
import type { ModuleDefinition } from './module';
import { checkUses, provideModules } from './registry';
import attendance from './attendance';
import audit from './audit';
import channels from './channels';
import community from './community';
import giving from './giving';
import groups from './groups';
import guests from './guests';
import people from './people';
import runsheet from './runsheet';
import platform from './platform';
import schedule from './schedule';
import spaces from './spaces';
import templates from './templates';
import store from './store';
import ticketing from './ticketing';
import billing from './billing';
import mediahub from './mediahub';
import grow from './grow';
import live from './live';

/** The registry: every module, in catalogue order. Adding a module is one line here. */
const registered: ModuleDefinition[] = [platform, people, giving, community, channels, templates, schedule, guests, attendance, runsheet, groups, spaces, ticketing, store, billing, audit, mediahub, grow, live];
export const MODULES: readonly ModuleDefinition[] = registered;
checkUses(registered);
provideModules(registered);

/**
 * Adds a module that lives outside this list (the kit's own tests build one under test/).
 * Must run before anything reads the catalogue or migrates a database; a second module
 * with the same name is refused.
 */
export function registerModule(module: ModuleDefinition): void {
  if (registered.some((existing) => existing.name === module.name)) throw new Error(`Module ${module.name} is registered already`);
  checkUses([...registered, module]);
  registered.push(module);
}

/** Every module's migrations in name (timestamp) order, so cross-module references apply in the order they were written. */
export function allMigrations(): Migration[] {
  const migrations = MODULES.flatMap((module) => module.migrations);
  const seen = new Set<string>();
  for (const migration of migrations) {
    if (seen.has(migration.name)) throw new Error(`Two modules declare migration ${migration.name}`);
    seen.add(migration.name);
  }
  return [...migrations].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Brings a database up to this version: every module's migrations, then the plan allowances
 * modules declare for their metered features. What every process runs before serving.
 */
export async function prepareDatabase(pool: Pool): Promise<string[]> {
  const applied = await migrate(pool, allMigrations());
  await seedPlanAllowances(pool, MODULES.flatMap((module) => module.meters ?? []));
  return applied;
}
