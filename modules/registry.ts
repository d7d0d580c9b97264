import type { ModuleDefinition } from './module';

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
