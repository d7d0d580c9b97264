import type { Migration } from '../../../../../db/migrate';
import { tenantPolicies } from '../../../../../db/row-level-security';
import { PRIVACY_COLUMNS_SQL } from '../../privacy';
import { GRIEF_TOUCHPOINT_STATUSES, LIFE_EVENT_INTENTS, LIFE_EVENT_STATUSES, LIFE_EVENT_TYPES } from '../constants';

const TABLES = ['pastoral_life_events', 'pastoral_grief_touchpoints'];

/** A constant list as an SQL `IN (...)` body; the values are this module's constants, never input. */
const sqlList = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

export const pastoralLifeEvents: Migration = {
  name: '2026.11.24T03.00.00.pastoral-life-events',
  up: `
-- What happened in a person's life that the church celebrates with them or supports them through.
CREATE TABLE pastoral_life_events (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  event_type text NOT NULL CHECK (event_type IN (${sqlList(LIFE_EVENT_TYPES)})),
  intent text NOT NULL CHECK (intent IN (${sqlList(LIFE_EVENT_INTENTS)})),
  status text NOT NULL DEFAULT 'new' CHECK (status IN (${sqlList(LIFE_EVENT_STATUSES)})),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  details text CHECK (length(details) <= 5000),
  event_date date NOT NULL,
  -- The person agreed to the event being shared with the congregation (community celebrations read only these).
  share_with_community boolean NOT NULL DEFAULT false,
  ${PRIVACY_COLUMNS_SQL},
  celebrated_at timestamptz,
  celebrated_by_user_id uuid,
  recorded_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pastoral_life_events_contact_idx ON pastoral_life_events (org_id, contact_id, event_date);
CREATE INDEX pastoral_life_events_date_idx ON pastoral_life_events (org_id, event_date);
-- Anniversaries on the radar are read by type.
CREATE INDEX pastoral_life_events_type_idx ON pastoral_life_events (org_id, event_type, event_date);

-- A bereavement's grief-care plan: one row per touchpoint, surfaced when due by the plan's workflow.
CREATE TABLE pastoral_grief_touchpoints (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  life_event_id uuid NOT NULL REFERENCES pastoral_life_events(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  label text NOT NULL CHECK (length(label) BETWEEN 1 AND 100),
  due_on date NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN (${sqlList(GRIEF_TOUCHPOINT_STATUSES)})),
  surfaced_at timestamptz,
  completed_at timestamptz,
  completed_by_user_id uuid,
  completion_note text CHECK (length(completion_note) <= 2000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (life_event_id, position),
  CHECK ((status = 'completed') = (completed_at IS NOT NULL))
);
CREATE INDEX pastoral_grief_touchpoints_due_idx ON pastoral_grief_touchpoints (org_id, status, due_on);

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE pastoral_grief_touchpoints;
DROP TABLE pastoral_life_events;
`,
};
