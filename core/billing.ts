/** Metered features (spec 4.3, platform_usage). */
export const METERED_FEATURES = [
  'email_sends', 'messaging_credits', 'contacts', 'runsheet_access_seats', 'donations',
  'tickets', 'check_ins', 'rooms', 'streams', 'media_items', 'mediahub_items', 'mediahub_storage_mb',
  'form_submissions', 'active_automations',
] as const;

export type MeteredFeature = (typeof METERED_FEATURES)[number];

export function isMeteredFeature(value: string): value is MeteredFeature {
  return (METERED_FEATURES as readonly string[]).includes(value);
}
