/** Metered features (spec 4.3, platform_usage). */
export const METERED_FEATURES = [
  'email_sends', 'messaging_credits', 'contacts', 'runsheet_access_seats', 'donations',
  'tickets', 'check_ins', 'rooms', 'streams', 'media_items',
] as const;

export type MeteredFeature = (typeof METERED_FEATURES)[number];

/**
 * Features whose allowance caps how many exist at once rather than how many are
 * used in a calendar month: a church with 500 contacts has used 500 of a 500-contact
 * plan whatever month they were added in.
 */
export const STANDING_FEATURES: ReadonlySet<MeteredFeature> = new Set(['contacts']);

export function isMeteredFeature(value: string): value is MeteredFeature {
  return (METERED_FEATURES as readonly string[]).includes(value);
}
