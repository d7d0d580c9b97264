// Contact card: people_get_contact's contact, as a card a pastor can read at a glance.
import { el, fields, startWidget } from '../../widget-view.mjs';

interface Contact {
  id: string;
  displayName: string;
  preferredName: string | null;
  email: string | null;
  phone: string | null;
  dateOfBirth: string | null;
  addressLine1: string | null;
  addressLine2: string | null;
  addressCity: string | null;
  addressCounty: string | null;
  addressPostcode: string | null;
  addressCountry: string | null;
  status: string;
  membershipStatus: string | null;
  baptismDate: string | null;
  membershipDate: string | null;
  anniversaryDate: string | null;
  customFields: Record<string, unknown>;
  tags: string[];
}

function addressOf(contact: Contact): string {
  return [contact.addressLine1, contact.addressLine2, contact.addressCity, contact.addressCounty, contact.addressPostcode, contact.addressCountry]
    .filter(Boolean).join(', ');
}

function customFieldRows(custom: Record<string, unknown>): Array<[string, string]> {
  return Object.entries(custom).map(([key, value]) => [key, Array.isArray(value) ? value.join(', ') : String(value)]);
}

function card({ contact }: { contact: Contact }): Node {
  return el('article', { class: 'card', 'data-id': contact.id },
    el('h1', {}, contact.displayName),
    contact.preferredName ? el('p', { class: 'muted' }, `Known as ${contact.preferredName}`) : null,
    el('p', { class: 'badges' },
      el('span', { class: 'badge', 'data-field': 'status' }, contact.status),
      contact.membershipStatus ? el('span', { class: 'badge', 'data-field': 'membershipStatus' }, contact.membershipStatus) : null),
    fields([
      ['Email', contact.email],
      ['Phone', contact.phone],
      ['Address', addressOf(contact)],
      ['Date of birth', contact.dateOfBirth],
      ['Baptised', contact.baptismDate],
      ['Member since', contact.membershipDate],
      ['Anniversary', contact.anniversaryDate],
      ...customFieldRows(contact.customFields),
    ]),
    contact.tags.length > 0 ? el('ul', { class: 'tags', 'aria-label': 'Tags' }, contact.tags.map((tag) => el('li', {}, tag))) : null);
}

startWidget('steward-contact-card', card);
