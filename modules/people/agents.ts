import { MAX_AGENT_ACTIONS_PER_RUN as MAX_ACTIONS_PER_RUN, type AgentAction, type AgentPlanner } from '../module';
import type { OrgSettings } from '../tool';
import { queryOne, type Queryable } from '../../db/pool';
import { listWelfareDueContacts } from './automations';
import { findDuplicatePairs } from './merge';
import { loadDeliveryContact } from './outreach';
import { outreachRefusal } from './outreach-recipient';
import { getPastoralSettings } from './pastoral/care/settings';
import { heldContactIds } from './pastoral/care/crisis';

/** Planning for the two agents the people module owns: data quality (duplicates) and pastoral care (welfare checks). */

async function peopleAgentActions(db: Queryable, orgId: string): Promise<AgentAction[]> {
  const pairs = await findDuplicatePairs(db, orgId, MAX_ACTIONS_PER_RUN * 3);
  // A contact in one proposed merge is left out of the others this run; they can follow once it is decided.
  const seen = new Set<string>();
  const actions: AgentAction[] = [];
  for (const pair of pairs) {
    if (seen.has(pair.keepContactId) || seen.has(pair.mergeContactId)) continue;
    seen.add(pair.keepContactId);
    seen.add(pair.mergeContactId);
    actions.push({
      tool: 'people_merge_data_quality_contacts',
      args: { keepContactId: pair.keepContactId, mergeContactId: pair.mergeContactId },
      summary: `Merge duplicate contact ${pair.mergeName} into ${pair.keepName} (same ${pair.matchedOn.join(' and ')})`,
      dedupeKey: `merge:${pair.keepContactId}:${pair.mergeContactId}`,
    });
  }
  return actions;
}

async function pastoralAgentActions(db: Queryable, org: OrgSettings): Promise<AgentAction[]> {
  // Proposals (summary and arguments, including the outreach reason) are read with platform:read alone,
  // so who is proposed and the days quoted come from contact such a reader may see.
  // Due after the organisation's welfare interval (pastoral settings; 180 days unless changed).
  const { welfareIntervalDays } = await getPastoralSettings(db, org.id);
  const due = await listWelfareDueContacts(db, org.id, { days: welfareIntervalDays, limit: MAX_ACTIONS_PER_RUN * 3, canSeeRestricted: false });
  // A crisis hold wins over the agent: a held person is never proposed for a message.
  const held = await heldContactIds(db, org.id, due.map((person) => person.contactId));
  const actions: AgentAction[] = [];
  for (const person of due) {
    if (held.has(person.contactId)) continue;
    const open = await queryOne(db, `SELECT 1 FROM outreach_items WHERE org_id = $1 AND contact_id = $2 AND status IN ('pending_review', 'approved')`, [org.id, person.contactId]);
    if (open) continue;
    const contact = await loadDeliveryContact(db, org.id, person.contactId);
    // The first channel channels' own rules would let the message go by (the check every dispatch makes).
    const channel = !(await outreachRefusal(db, org.id, person.contactId, 'email')) ? 'email'
      : !(await outreachRefusal(db, org.id, person.contactId, 'sms')) ? 'sms' : null;
    if (!channel) continue;
    const firstName = contact!.preferred_name ?? contact!.first_name ?? person.name;
    actions.push({
      tool: 'people_create_outreach',
      args: {
        contactId: person.contactId,
        channel,
        ...(channel === 'email' ? { subject: `Thinking of you, ${firstName}` } : {}),
        body: `Hi ${firstName}, it has been a while since we were last in touch and we wanted to check in. How are you doing? If there is anything we can do or pray about, just reply. With love from everyone at ${org.name}.`,
        reason: `${person.daysSinceContact} days since last pastoral contact`,
      },
      summary: `Welfare check for ${person.name}: ${person.daysSinceContact} days since last pastoral contact (${channel})`,
      dedupeKey: `welfare:${person.contactId}`,
    });
    if (actions.length >= MAX_ACTIONS_PER_RUN * 2) break;
  }
  return actions;
}


export const peopleAgents: readonly AgentPlanner[] = [
  { key: 'people', plan: (db, org) => peopleAgentActions(db, org.id) },
  { key: 'pastoral_care', plan: pastoralAgentActions },
];
