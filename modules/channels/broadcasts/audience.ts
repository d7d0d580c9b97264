import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import type { Queryable } from '../../../db/pool';
import { listContacts } from '../../people/api';
import { listGroupMembers } from '../../people/api';
import { listSegmentContacts, requireSegment } from '../../people/api';
import { requireTag } from '../../people/api';

/** The most people one broadcast may go to; a larger audience is split into several broadcasts. */
export const MAX_AUDIENCE = 10_000;

export const audienceSchema = z.object({
  kind: z.enum(['segment', 'tag', 'group']).describe('segment (people_list_segments_api), tag (people_list_tags) or CRM group (people_list_crm_groups)'),
  id: z.uuid().describe("The segment's, tag's or group's id"),
}).strict();

export type Audience = z.infer<typeof audienceSchema>;

const PAGE = 2_000;

/** Every page of an offset-paged people list, until a short page. */
async function allPages(fetch: (offset: number) => Promise<string[]>): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await fetch(offset);
    ids.push(...page);
    if (page.length < PAGE || ids.length > MAX_AUDIENCE) return ids;
  }
}

/**
 * The live contacts an audience names right now, through people's services: a segment's members
 * (as of its last refresh), a tag's contacts, a CRM group's members. Sorted and without repeats, so
 * the same audience always gives the same list (and the same preview hash).
 */
export async function resolveAudience(db: Queryable, orgId: string, audience: Audience): Promise<string[]> {
  let ids: string[];
  if (audience.kind === 'segment') {
    await requireSegment(db, orgId, audience.id);
    ids = await allPages(async (offset) => (await listSegmentContacts(db, orgId, audience.id, { limit: PAGE, offset })).contacts.map((c) => c.contactId));
  } else if (audience.kind === 'tag') {
    const tag = await requireTag(db, orgId, { tagId: audience.id });
    ids = await allPages(async (offset) => (await listContacts(db, orgId, { tag: tag.name }, { limit: PAGE, offset })).contacts.map((c) => c.id));
  } else {
    ids = (await listGroupMembers(db, orgId, { groupId: audience.id })).members.map((m) => m.contactId);
  }
  const unique = [...new Set(ids)].sort();
  if (unique.length > MAX_AUDIENCE) {
    throw new StewardError('validation_failed', `The audience holds more than ${MAX_AUDIENCE} people`, {
      hint: 'Narrow it (a smaller segment, tag or group) and send several broadcasts.', issues: [{ path: 'audience', message: `over ${MAX_AUDIENCE} people` }],
    });
  }
  return unique;
}
