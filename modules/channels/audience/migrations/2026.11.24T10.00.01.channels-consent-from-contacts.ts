import type { Migration } from '../../../../db/migrate';

/**
 * Today's contact fields become consent evidence and suppressions (the fields stay as a projection
 * the channels module keeps in step). The mapping:
 *
 * | contact field            | becomes                                                              |
 * |--------------------------|----------------------------------------------------------------------|
 * | status = 'subscribed'    | email consent, purpose marketing, basis consent, captured when the   |
 * |                          | contact last became subscribed (status history), else when created   |
 * | status = 'unsubscribed'  | email suppression of the contact's address, reason unsubscribe       |
 * | status = 'bounced'       | email suppression of the contact's address, reason hard_bounce       |
 * | status = 'non_subscribed'| nothing (no consent on record)                                       |
 * | whatsapp_consent = true  | WhatsApp consent, purpose service, basis consent (the old flag was   |
 * |                          | the only WhatsApp permission: it allowed pastoral messages, not      |
 * |                          | marketing)                                                           |
 *
 * The wording shown was never recorded; each row says so, and its source names the field it came
 * from. Soft-deleted contacts are skipped; several contacts sharing an address give one suppression.
 */
export const channelsConsentFromContacts: Migration = {
  name: '2026.11.24T10.00.01.channels-consent-from-contacts',
  up: `
INSERT INTO channel_consents (id, org_id, contact_id, channel, purpose, basis, source, wording, captured_at, recorded_by)
SELECT gen_random_uuid(), c.org_id, c.id, 'email', 'marketing', 'consent', 'migrated:contact.status',
  'Recorded as subscribed on the contact before consent evidence was kept; the wording shown was not recorded.',
  COALESCE((SELECT max(e.occurred_at) FROM contact_status_events e
            WHERE e.org_id = c.org_id AND e.contact_id = c.id AND e.to_status = 'subscribed'), c.created_at),
  'migration'
FROM contacts c WHERE c.status = 'subscribed' AND c.deleted_at IS NULL;

INSERT INTO channel_consents (id, org_id, contact_id, channel, purpose, basis, source, wording, captured_at, recorded_by)
SELECT gen_random_uuid(), c.org_id, c.id, 'whatsapp', 'service', 'consent', 'migrated:contact.whatsapp_consent',
  'Recorded as consenting to WhatsApp on the contact before consent evidence was kept; the wording shown was not recorded.',
  c.updated_at, 'migration'
FROM contacts c WHERE c.whatsapp_consent AND c.deleted_at IS NULL;

INSERT INTO channel_suppressions (id, org_id, channel, address, reason, source, created_at)
SELECT DISTINCT ON (c.org_id, lower(trim(c.email))) gen_random_uuid(), c.org_id, 'email', lower(trim(c.email)),
  CASE c.status WHEN 'bounced' THEN 'hard_bounce' ELSE 'unsubscribe' END, 'migrated:contact.status', c.updated_at
FROM contacts c
WHERE c.status IN ('unsubscribed', 'bounced') AND c.deleted_at IS NULL AND length(trim(coalesce(c.email, ''))) >= 3
ORDER BY c.org_id, lower(trim(c.email)), (c.status = 'bounced') DESC
ON CONFLICT DO NOTHING;
`,
  down: `
DELETE FROM channel_consents WHERE recorded_by = 'migration';
DELETE FROM channel_suppressions WHERE source = 'migrated:contact.status';
`,
};
