import type { ModuleContributions, ModuleDefinition } from './module';

/**
 * The registered modules, for the kernel services that read every module's declarations while
 * they run (billing's meters, the agents' planners, retention rules, contact references). The
 * registry, modules/index.ts, hands its list over as it loads: this file imports nothing above it,
 * so the services beneath the modules never import the registry that imports them.
 */
let registered: readonly ModuleDefinition[] | undefined;

/** Called once by modules/index.ts with its list (later registrations add to the same array). */
export function provideModules(modules: readonly ModuleDefinition[]): void {
  registered = modules;
}

export function registeredModules(): readonly ModuleDefinition[] {
  // An empty list would quietly meter, plan and purge nothing; a process that skipped the registry is a wiring bug.
  if (!registered) throw new Error('No modules are registered: load modules/index.ts (the registry) before calling the services that read it');
  return registered;
}

/** Every registered module's contribution to one extension point (ModuleContributions), in registry order. */
export function contributionsTo<K extends keyof ModuleContributions>(point: K): Array<NonNullable<ModuleContributions[K]>> {
  return registeredModules().flatMap((module) => {
    const value = module.contributes?.[point];
    return value === undefined ? [] : [value as NonNullable<ModuleContributions[K]>];
  });
}

/** The one contribution to a point that needs exactly one provider (a second would make the answer depend on order). */
export function soleContributionTo<K extends keyof ModuleContributions>(point: K): NonNullable<ModuleContributions[K]> {
  const found = contributionsTo(point);
  if (found.length !== 1) throw new Error(`Extension point ${String(point)} needs exactly one module to fill it; ${found.length} do`);
  return found[0]!;
}

/**
 * Refuses a `uses` list naming a module that is not registered, and any cycle among them: one
 * module calls another's api.ts only one way round; the other way is an extension point.
 */
export function checkUses(modules: readonly ModuleDefinition[]): void {
  const names = new Set(modules.map((module) => module.name));
  const uses = new Map(modules.map((module) => [module.name, module.uses ?? []]));
  for (const [name, used] of uses) {
    for (const other of used) {
      if (other === name) throw new Error(`Module ${name} names itself in uses`);
      if (!names.has(other)) throw new Error(`Module ${name} uses ${other}, which is not registered`);
    }
  }
  const done = new Set<string>();
  const visit = (name: string, path: readonly string[]): void => {
    if (path.includes(name)) {
      const cycle = [...path.slice(path.indexOf(name)), name];
      throw new Error(`Modules use each other in a cycle: ${cycle.join(' → ')}; let one of them declare an extension point the other contributes to instead`);
    }
    if (done.has(name)) return;
    for (const other of uses.get(name) ?? []) visit(other, [...path, name]);
    done.add(name);
  };
  for (const name of uses.keys()) visit(name, []);
}
