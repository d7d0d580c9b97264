import type { ModulePart } from '../../module';

export const semanticPart: ModulePart = { name: 'semantic', tools: [] };
