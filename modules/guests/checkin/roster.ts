import { queryRows, type Queryable } from '../../../db/pool';
import type { RowOf } from '../../kit';
import { getInstance } from '../../schedule/api';
import type { Caller, PersonKind } from './checkin';
import { mayReadMedical } from './labels';
import type { GuestsCheckin } from './models';
import { childProfiles, getCheckinSettings, listLocations, requireLocation, type LocationView } from './setup';

export interface RosterPerson {
  checkinId: string;
  contactId: string;
  name: string;
  personKind: PersonKind;
  firstTime: boolean;
  checkedInAt: string;
  medicalAlert: boolean;
  allergies: string | null;
  medicalNotes: string | null;
  medicalWithheld: boolean;
}

export interface RosterRoom {
  locationId: string;
  name: string;
  children: number;
  adults: number;
  volunteers: number;
  capacity: number | null;
  placesLeft: number | null;
  childrenPerAdult: number | null;
  /** Whether the children present are within the ratio to the leaders present (true when the room has no ratio). */
  ratioMet: boolean;
  people: RosterPerson[];
}

type RosterRow = Pick<RowOf<InstanceType<typeof GuestsCheckin>>, 'id' | 'contact_id' | 'location_id' | 'person_kind' | 'first_time' | 'checked_in_at'> & { name: string | null };

/**
 * Who is in each location for one service now (checked in, not out), with counts against capacity
 * and ratio. Security codes are never listed: a code proves a pickup, so only the parent's tag holds it.
 */
export async function liveRoster(db: Queryable, caller: Caller, input: { instanceId: string; locationId?: string }) {
  const instance = await getInstance(db, caller.orgId, input.instanceId);
  const locations: LocationView[] = input.locationId ? [await requireLocation(db, caller.orgId, input.locationId)] : await listLocations(db, caller.orgId);
  const rows = await queryRows<RosterRow>(db, `SELECT c.id, c.contact_id, c.location_id, c.person_kind, c.first_time, c.checked_in_at,
      trim(concat_ws(' ', coalesce(d.preferred_name, d.first_name), d.last_name)) AS name
    FROM guests_checkins c LEFT JOIN people_directory d ON d.id = c.contact_id AND d.org_id = c.org_id
    WHERE c.org_id = $1 AND c.instance_id = $2 AND c.checked_out_at IS NULL AND c.location_id = ANY($3::uuid[])
    ORDER BY c.checked_in_at, c.id`, [caller.orgId, instance.id, locations.map((location) => location.id)]);
  const mayRead = mayReadMedical(caller.role, await getCheckinSettings(db, caller.orgId));
  const profiles = await childProfiles(db, caller.orgId, rows.filter((row) => row.person_kind === 'child').map((row) => row.contact_id));
  const rooms: RosterRoom[] = locations.map((location) => {
    const people = rows.filter((row) => row.location_id === location.id).map((row): RosterPerson => {
      const profile = row.person_kind === 'child' ? profiles.get(row.contact_id) : undefined;
      const hasNotes = Boolean(profile?.allergies || profile?.medicalNotes);
      return {
        checkinId: row.id, contactId: row.contact_id, name: row.name || 'Unnamed contact', personKind: row.person_kind, firstTime: row.first_time,
        checkedInAt: row.checked_in_at.toISOString(), medicalAlert: hasNotes,
        allergies: mayRead ? profile?.allergies ?? null : null, medicalNotes: mayRead ? profile?.medicalNotes ?? null : null, medicalWithheld: hasNotes && !mayRead,
      };
    });
    const count = (kind: PersonKind) => people.filter((person) => person.personKind === kind).length;
    const children = count('child');
    const adults = count('adult');
    const volunteers = count('volunteer');
    return {
      locationId: location.id, name: location.name, children, adults, volunteers, capacity: location.capacity,
      placesLeft: location.capacity === null ? null : Math.max(0, location.capacity - children - adults),
      childrenPerAdult: location.childrenPerAdult,
      ratioMet: location.childrenPerAdult === null || children <= volunteers * location.childrenPerAdult,
      people,
    };
  });
  return {
    instanceId: instance.id, localDate: instance.localDate, title: instance.title,
    totals: { children: sum(rooms, 'children'), adults: sum(rooms, 'adults'), volunteers: sum(rooms, 'volunteers') },
    rooms,
  };
}

const sum = (rooms: RosterRoom[], key: 'children' | 'adults' | 'volunteers') => rooms.reduce((total, room) => total + room[key], 0);
