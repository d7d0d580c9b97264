/**
 * The vocabulary of life events and grief care, shared by the migration's CHECK constraints,
 * the tools' schemas and the services, so the three never disagree.
 */
export const LIFE_EVENT_TYPES = [
  'birth', 'adoption', 'marriage', 'engagement', 'bereavement', 'illness', 'hospitalisation', 'surgery', 'recovery',
  'new_job', 'job_loss', 'retirement', 'graduation', 'moving', 'baptism', 'confirmation', 'anniversary', 'other',
] as const;
export type LifeEventType = (typeof LIFE_EVENT_TYPES)[number];

export const LIFE_EVENT_INTENTS = ['celebrate', 'support'] as const;
export type LifeEventIntent = (typeof LIFE_EVENT_INTENTS)[number];

/** new: recorded, nobody has responded yet; acknowledged: someone has been in touch; ongoing: care continues; resolved: closed. */
export const LIFE_EVENT_STATUSES = ['new', 'acknowledged', 'ongoing', 'resolved'] as const;
export type LifeEventStatus = (typeof LIFE_EVENT_STATUSES)[number];

/** What the church usually does about each kind of event when the recorder does not say. */
export const DEFAULT_INTENT: Readonly<Record<LifeEventType, LifeEventIntent>> = {
  birth: 'celebrate', adoption: 'celebrate', marriage: 'celebrate', engagement: 'celebrate', bereavement: 'support',
  illness: 'support', hospitalisation: 'support', surgery: 'support', recovery: 'celebrate', new_job: 'celebrate',
  job_loss: 'support', retirement: 'celebrate', graduation: 'celebrate', moving: 'support', baptism: 'celebrate',
  confirmation: 'celebrate', anniversary: 'celebrate', other: 'support',
};

/** Event types whose date comes round every year and is worth remembering (the radar shows their anniversaries). */
export const ANNUAL_EVENT_TYPES: readonly LifeEventType[] = ['bereavement', 'marriage', 'baptism', 'anniversary', 'adoption'];

/**
 * pending: not yet due; due: surfaced by the plan's workflow, waiting for someone; completed: done;
 * skipped: its date had already passed when the bereavement was recorded (a later touchpoint stands in for it).
 */
export const GRIEF_TOUCHPOINT_STATUSES = ['pending', 'due', 'completed', 'skipped'] as const;
export type GriefTouchpointStatus = (typeof GRIEF_TOUCHPOINT_STATUSES)[number];

/** One step of a grief-care plan: due so many months and days after the bereavement (the plan itself is in the pastoral settings). */
export interface GriefPlanStep {
  label: string;
  months?: number;
  days?: number;
}

/** Timeline sources of this part (care-timeline `source_kind`). */
export const LIFE_EVENT_SOURCE = 'life_event';
/** The removal of a life event, kept on the timeline without its details; restricted entries only for safeguarding holders. */
export const LIFE_EVENT_REMOVAL_SOURCE = 'life_event_removal';
export const GRIEF_TOUCHPOINT_SOURCE = 'grief_touchpoint';
