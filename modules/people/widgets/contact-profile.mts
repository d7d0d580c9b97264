// Contact profile: people_get_contact_profile's profile, as the profile page's header and tabs at a glance.
import { el, fields, startWidget, when } from '../../widget-view.mjs';

interface Person { contactId: string; displayName: string }
interface Profile {
  contact: {
    id: string; displayName: string; email: string | null; phone: string | null; status: string; membershipStatus: string | null;
    addressLine1: string | null; addressCity: string | null; addressPostcode: string | null; dateOfBirth: string | null; membershipDate: string | null; tags: string[];
  };
  household: Person[];
  family: Array<Person & { relationship: string }>;
  groups: Array<{ groupId: string; name: string; role: string | null }>;
  segments: Array<{ segmentId: string; name: string }>;
  community: { member: boolean; joinedOn: string } | null;
  openFollowUps: Array<{ taskId: string; title: string; dueDate: string | null }>;
  recentActivity: Array<{ kind: string; summary: string; occurredAt: string }>;
  hasActiveMemberQr: boolean;
}

function list(label: string, items: string[]): Node | null {
  return items.length > 0 ? el('section', { 'aria-label': label }, el('h2', {}, label), el('ul', {}, items.map((item) => el('li', {}, item)))) : null;
}

function profileView({ profile }: { profile: Profile }): Node {
  const c = profile.contact;
  return el('article', { class: 'card', 'data-id': c.id },
    el('h1', {}, c.displayName),
    el('p', { class: 'badges' },
      el('span', { class: 'badge', 'data-field': 'status' }, c.status),
      c.membershipStatus ? el('span', { class: 'badge', 'data-field': 'membershipStatus' }, c.membershipStatus) : null,
      profile.community?.member ? el('span', { class: 'badge' }, 'Community') : null,
      profile.hasActiveMemberQr ? el('span', { class: 'badge' }, 'Member QR') : null),
    fields([
      ['Email', c.email], ['Phone', c.phone], ['Address', [c.addressLine1, c.addressCity, c.addressPostcode].filter(Boolean).join(', ')],
      ['Date of birth', c.dateOfBirth], ['Member since', c.membershipDate],
    ]),
    c.tags.length > 0 ? el('ul', { class: 'tags', 'aria-label': 'Tags' }, c.tags.map((tag) => el('li', {}, tag))) : null,
    list('Household', profile.household.map((p) => p.displayName)),
    list('Family', profile.family.map((p) => `${p.displayName} (${p.relationship})`)),
    list('Teams', profile.groups.map((g) => (g.role ? `${g.name} (${g.role})` : g.name))),
    list('Segments', profile.segments.map((s) => s.name)),
    list('Open follow-ups', profile.openFollowUps.map((t) => (t.dueDate ? `${t.title} (due ${t.dueDate})` : t.title))),
    list('Recent activity', profile.recentActivity.map((a) => `${when(a.occurredAt)}: ${a.summary}`)));
}

startWidget('steward-contact-profile', profileView);
