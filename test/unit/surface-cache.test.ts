import { ALL_SCOPES, type Scope } from '../../core/scopes';
import { allModules, permittedTools } from '../../modules/catalogue';
import {
  BoundedCache, SURFACE_CACHE_LIMIT, bridgeToolsBodyFor, manifestEntryOf, mcpToolOf, mcpToolsFor, openAiFunctionOf, parseToolsets,
  selectTools, surfaceCacheSizes,
} from '../../modules/surfaces';

/**
 * Many distinct `?toolsets=` values naming only real modules: every subset, in
 * both orders, with names repeated up to `repeats` times (all valid, all different strings).
 */
function toolsetQueries(modules: readonly string[], repeats: number): string[] {
  const out = new Set<string>();
  for (let mask = 1; mask < 1 << modules.length; mask += 1) {
    const chosen = modules.filter((_, i) => mask & (1 << i));
    for (let n = 1; n <= repeats; n += 1) {
      const repeated = chosen.flatMap((name) => Array.from({ length: n }, () => name));
      out.add(repeated.join(','));
      out.add([...repeated].reverse().join(','));
    }
  }
  return [...out];
}

describe('BoundedCache', () => {
  it('never holds more than its limit and drops the least recently used entry', () => {
    const cache = new BoundedCache<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // now most recently used
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
    for (let i = 0; i < 1000; i += 1) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new BoundedCache(0)).toThrow();
    expect(() => new BoundedCache(1.5)).toThrow();
  });
});

describe('surface caches', () => {
  const scopes = [...ALL_SCOPES] as Scope[];

  it('tools/list stays one entry per scope set whatever ?toolsets= combinations a client sends', () => {
    const modules = allModules();
    // Thousands of distinct strings, far past the cache limit; more repeats only made the test slow (minutes on a busy machine).
    const combinations = toolsetQueries(modules.slice(0, 10), 3);
    const before = surfaceCacheSizes().mcpTools;
    for (const raw of ['', 'all', ...combinations]) {
      const { toolsets, unknown } = parseToolsets(raw);
      expect(unknown).toEqual([]);
      mcpToolsFor(scopes, toolsets);
    }
    expect(combinations.length).toBeGreaterThan(SURFACE_CACHE_LIMIT);
    expect(surfaceCacheSizes().mcpTools - before).toBeLessThanOrEqual(1);
  });

  it('stays bounded when clients present many distinct scope sets', () => {
    for (let i = 0; i < SURFACE_CACHE_LIMIT * 3; i += 1) {
      // Distinct sets of one to all scopes, in a rotating order.
      const set = scopes.filter((_, index) => ((index + i) % scopes.length) <= (i % scopes.length));
      mcpToolsFor(set, 'default');
      bridgeToolsBodyFor(set, i % 2 === 0 ? 'openai' : 'manifest');
    }
    const sizes = surfaceCacheSizes();
    expect(sizes.mcpTools).toBeLessThanOrEqual(SURFACE_CACHE_LIMIT);
    expect(sizes.bridgeTools).toBeLessThanOrEqual(SURFACE_CACHE_LIMIT);
  });

  it('filters toolsets on the cached entries exactly as selectTools does', () => {
    const permitted = permittedTools(scopes);
    const modules = allModules();
    for (const raw of ['', 'all', modules[0], modules.slice(0, 3).join(','), modules.join(',')]) {
      const { toolsets } = parseToolsets(raw);
      expect(mcpToolsFor(scopes, toolsets)).toEqual(selectTools(permitted, toolsets).map(mcpToolOf));
    }
  });

  it('serves the bridge bodies as the surfaces would build them, and the same bytes every time', () => {
    const reader = ['people:read', 'platform:read'] as Scope[];
    const tools = permittedTools(reader);
    expect(JSON.parse(bridgeToolsBodyFor(reader, 'openai'))).toEqual({ tools: tools.map(openAiFunctionOf) });
    const manifest = JSON.parse(bridgeToolsBodyFor(reader, 'manifest'));
    expect(manifest.counts.permitted).toBe(tools.length);
    expect(manifest.tools).toEqual(JSON.parse(JSON.stringify(tools.map(manifestEntryOf))));
    expect(bridgeToolsBodyFor([...reader].reverse(), 'manifest')).toBe(bridgeToolsBodyFor(reader, 'manifest'));
  });
});
