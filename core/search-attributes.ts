import { defineSearchAttributeKey } from '@temporalio/common';

/** Custom search attributes an operator filters runs by in the Temporal UI. */
export const SA_ORG = defineSearchAttributeKey('StewardOrg', 'KEYWORD');
export const SA_TOOL = defineSearchAttributeKey('StewardTool', 'KEYWORD');
export const SA_MODULE = defineSearchAttributeKey('StewardModule', 'KEYWORD');
export const SA_ACTOR = defineSearchAttributeKey('StewardActor', 'KEYWORD');
export const SA_KIND = defineSearchAttributeKey('StewardKind', 'KEYWORD');
export const SA_STATUS = defineSearchAttributeKey('StewardStatus', 'KEYWORD');

export const ALL_SEARCH_ATTRIBUTES = [SA_ORG, SA_TOOL, SA_MODULE, SA_ACTOR, SA_KIND, SA_STATUS];

/** `--search-attribute` flags for `temporal server start-dev`. */
export function devServerSearchAttributeFlags(): string[] {
  return ALL_SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]);
}
