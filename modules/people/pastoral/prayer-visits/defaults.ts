/**
 * The community settings an organisation runs on until it saves its own: the migration writes them
 * as the table's column defaults and getCommunitySettings answers with them while no row exists.
 */
export const COMMUNITY_SETTINGS_DEFAULTS = {
  prayerWallEnabled: true,
  celebrationsEnabled: true,
  celebratedLifeEventTypes: ['birth', 'marriage', 'baptism', 'new_job', 'anniversary'],
  wallPostLifetimeDays: 30,
  newMemberWindowDays: 90,
} as const;

/** A SQL text[] literal of plain lowercase words (the defaults above), for the migration. */
export function textArraySql(values: readonly string[]): string {
  for (const value of values) if (!/^[a-z_]+$/.test(value)) throw new Error(`Not a plain word: ${value}`);
  return `ARRAY[${values.map((value) => `'${value}'`).join(', ')}]::text[]`;
}
