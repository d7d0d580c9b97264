import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/** The people module's tables (including those the first platform migrations created for it). */
const TENANT_TABLES = [
  'contacts', 'tag_categories', 'tags', 'contact_tags', 'notes', 'timeline_entries', 'pastoral_automations',
  'outreach_items', 'contact_merges', 'family_relationships', 'contact_status_events', 'crm_groups',
  'crm_group_members', 'custom_field_sections', 'custom_field_definitions', 'segments', 'segment_members',
  'follow_up_tasks',
];

/** Row-level security, part two: the people module's tables (the role and grants come from the platform migration before it). */
export const rowLevelSecurity: Migration = {
  name: '2026.11.23T00.00.01.row-level-security',
  up: tenantPolicies(TENANT_TABLES).up,
  down: tenantPolicies(TENANT_TABLES).down,
};
