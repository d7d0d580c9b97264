import type { ModuleDefinition } from './module';

/**
 * The registered modules, looked up when called rather than imported: platform files that
 * consult the registry (billing, agents, retention, the catalogue) are themselves loaded by
 * it, so a static import would see it half-built whenever one of them is loaded first.
 */
export function registeredModules(): readonly ModuleDefinition[] {
  // The registry's array is one object for the process (registerModule adds to it), so one lookup serves every call.
  registry ??= (require('./index') as typeof import('./index')).MODULES;
  return registry;
}

let registry: readonly ModuleDefinition[] | undefined;
