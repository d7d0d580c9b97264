import { z } from 'zod';
import { MODULES } from '../../modules';
import { formatMinorUnits } from '../../modules/giving/money';
import { PROMISED_METRICS, defineMetric, metricCatalogue, periodRange, spokenRange } from '../../modules/metrics';
import { defineModule, type ModuleDefinition } from '../../modules/module';
import { findTool } from '../../modules/catalogue';

/** The metric catalogue platform_analytics_query is built from: who owns each metric, and what the kit refuses. */

const WHITELIST = [
  'total_contacts', 'contacts_by_membership_status', 'count_unsubscribes', 'top_donors', 'giving_total',
  'attendance_total', 'first_time_visitors', 'contacts_by_status', 'weekly_trend_attendance', 'weekly_trend_giving',
];

const metric = (name: string, scope: 'people:read' | 'giving:read' = 'people:read') => defineMetric({
  name, description: 'A test metric.', scope, params: [], output: z.object({ n: z.number() }).strict(),
  compute: async () => ({ data: { n: 1 }, speakToUser: 'One.' }),
});

const moduleWith = (name: string, metrics: ModuleDefinition['metrics'], scopes: ModuleDefinition['scopes'] = ['people:read']): ModuleDefinition =>
  ({ name, title: name, description: name, tools: [], migrations: [], scopes, routes: [], metrics });

describe('analytics metrics', () => {
  const catalogue = metricCatalogue(MODULES);

  it('promises exactly the whitelist of spec 4.3', () => {
    expect(Object.keys(PROMISED_METRICS).sort()).toEqual([...WHITELIST].sort());
  });

  it('has every whitelisted metric registered by exactly one module, the one promised, or reported not available', () => {
    const registered = MODULES.map((module) => module.name);
    for (const name of WHITELIST) {
      const owners = MODULES.filter((module) => (module.metrics ?? []).some((m) => m.name === name)).map((module) => module.name);
      if (owners.length) {
        expect({ name, owners }).toEqual({ name, owners: [PROMISED_METRICS[name]] });
        expect(catalogue.available.get(name)?.module).toBe(PROMISED_METRICS[name]);
        expect(catalogue.unavailable.has(name)).toBe(false);
      } else {
        expect({ name, unavailable: catalogue.unavailable.get(name) }).toEqual({ name, unavailable: PROMISED_METRICS[name] });
        expect(registered).not.toContain(PROMISED_METRICS[name]);
      }
    }
    expect([...catalogue.unavailable.keys()]).toEqual([]);
    for (const name of ['attendance_total', 'weekly_trend_attendance']) {
      expect({ name, module: catalogue.available.get(name)?.module, scope: catalogue.available.get(name)?.metric.scope }).toEqual({ name, module: 'attendance', scope: 'attendance:read' });
    }
  });

  it('gives each module\'s metrics its own read scope (people, giving, attendance)', () => {
    for (const [name, { module, metric: m }] of catalogue.available) {
      expect({ name, scope: m.scope }).toEqual({ name, scope: `${module}:read` });
    }
  });

  it('refuses two modules declaring the same metric', () => {
    const modules = [moduleWith('one', [metric('shared_count')]), moduleWith('two', [metric('shared_count')])];
    expect(() => metricCatalogue(modules)).toThrow('Metric shared_count is declared by both one and two');
  });

  it('refuses at load a metric needing a scope its module does not declare, or a promised metric in the wrong module', () => {
    expect(() => defineModule(moduleWith('one', [metric('odd_count', 'giving:read')]))).toThrow('requires giving:read');
    expect(() => defineModule(moduleWith('one', [metric('total_contacts')]))).toThrow('belongs to module people');
    expect(() => defineModule(moduleWith('one', [metric('Bad-Name')]))).toThrow('snake_case');
  });

  it('builds the tool from the catalogue: every whitelisted name accepted and described, none waiting on a module', () => {
    const tool = findTool('platform_analytics_query')!;
    expect(tool).toMatchObject({ scope: 'platform:read', effect: 'read', listed: false });
    for (const name of WHITELIST) expect(tool.input.safeParse({ metric: name }).success).toBe(true);
    expect(tool.input.safeParse({ metric: 'drop_table' }).success).toBe(false);
    for (const name of WHITELIST) expect(tool.description).toContain(`${name} (`);
    expect(tool.description).not.toContain('(attendance module)');
  });

  it('refuses bad parameters in the schema', () => {
    const input = findTool('platform_analytics_query')!.input;
    const refused = (args: Record<string, unknown>) => input.safeParse(args).success === false;
    expect(refused({ metric: 'giving_total', from: '2026-11-02', to: '2026-11-01' })).toBe(true);
    expect(refused({ metric: 'giving_total', from: '2026-02-30' })).toBe(true);
    expect(refused({ metric: 'giving_total', from: '01/11/2026' })).toBe(true);
    expect(refused({ metric: 'giving_total', period: 'this_month', from: '2026-11-01' })).toBe(true);
    expect(refused({ metric: 'top_donors', limit: 0 })).toBe(true);
    expect(refused({ metric: 'top_donors', limit: 51 })).toBe(true);
    expect(refused({ metric: 'total_contacts', from: '2026-11-01' })).toBe(true);
    expect(refused({ metric: 'giving_total', limit: 5 })).toBe(true);
    expect(refused({ metric: 'top_donors', limit: 50, from: '2026-01-01', to: '2026-06-30' })).toBe(false);
  });

  it('speaks of ranges and money as people do', () => {
    expect(spokenRange('2026-10-01', '2026-10-31', '2026-11-24')).toBe('in October 2026');
    expect(spokenRange('2026-11-01', '2026-11-24', '2026-11-24')).toBe('in November 2026 so far');
    // On a month's (or a year's) last day it is still going.
    expect(spokenRange('2026-11-01', '2026-11-30', '2026-11-30')).toBe('in November 2026 so far');
    expect(spokenRange('2026-11-01', '2026-11-30', '2026-12-01')).toBe('in November 2026');
    expect(spokenRange('2026-01-01', '2026-12-31', '2026-12-31')).toBe('in 2026 so far');
    expect(spokenRange('2026-11-03', '2026-11-03')).toBe('on 3 November 2026');
    expect(spokenRange('2025-01-01', '2025-12-31')).toBe('in 2025');
    expect(spokenRange('2026-01-01', '2026-11-24', '2026-11-24')).toBe('in 2026 so far');
    expect(spokenRange('2026-10-05', '2026-11-03')).toBe('between 5 October 2026 and 3 November 2026');
    expect(periodRange('last_month', '2026-01-15')).toEqual({ from: '2025-12-01', to: '2025-12-31' });
    expect(periodRange('this_year', '2026-03-02')).toEqual({ from: '2026-01-01', to: '2026-03-02' });
    expect(formatMinorUnits(123_450, 'GBP')).toBe('£1,234.50');
    expect(formatMinorUnits(123_450, 'USD', 'US')).toBe('$1,234.50');
    expect(formatMinorUnits(5_000, 'JPY', 'JP')).toBe('¥5,000');
    expect(formatMinorUnits(-250, 'GBP')).toBe('-£2.50');
  });
});
