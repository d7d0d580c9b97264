import { z } from 'zod';
import { CONFIDENTIALITY_LEVELS, NOTE_PRIVACY } from '../../schemas';

/** Who may read a prayer request: private (only people:safeguarding holders), the pastoral team, or the whole congregation. */
export const PRAYER_VISIBILITIES = ['private', 'team', 'congregation'] as const;
export type PrayerVisibility = (typeof PRAYER_VISIBILITIES)[number];
export const PRAYER_STATUSES = ['active', 'answered'] as const;
export type PrayerStatus = (typeof PRAYER_STATUSES)[number];

/** Visibility is the prayer-request word for the one privacy column every pastoral record has. */
const PRIVACY_OF: Record<PrayerVisibility, (typeof NOTE_PRIVACY)[number]> = { private: 'private', team: 'team', congregation: 'public' };
export const privacyOfVisibility = (visibility: PrayerVisibility) => PRIVACY_OF[visibility];
export function visibilityOfPrivacy(privacy: string): PrayerVisibility {
  if (privacy === 'private') return 'private';
  return privacy === 'public' ? 'congregation' : 'team';
}

export const VISIT_KINDS = ['home', 'hospital', 'care_home', 'phone', 'video', 'church', 'other'] as const;

export const prayerRequestSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid(),
  contactName: z.string(),
  request: z.string(),
  visibility: z.enum(PRAYER_VISIBILITIES),
  confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS),
  urgent: z.boolean(),
  status: z.enum(PRAYER_STATUSES),
  answeredAt: z.string().nullable(),
  answerNote: z.string().nullable(),
  createdAt: z.string(),
}).strict();
export type PrayerRequestView = z.infer<typeof prayerRequestSchema>;

export const pastoralVisitSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid(),
  contactName: z.string(),
  visitDate: z.string().describe('YYYY-MM-DD'),
  kind: z.enum(VISIT_KINDS),
  durationMinutes: z.number().int().nullable(),
  summary: z.string(),
  visitorName: z.string().nullable(),
  privacy: z.enum(NOTE_PRIVACY),
  confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS),
  createdAt: z.string(),
}).strict();
export type PastoralVisitView = z.infer<typeof pastoralVisitSchema>;

