import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** The people dashboard's tools: B's key with A's contacts, teams, saved searches, partner shares, QR codes and bulk operations. */
export const isolation: IsolationPart = {
  tables: [],
  secrets: ['Isolation saved search', 'Isolation partner charity', 'Isolation share purpose'],
  async seed({ harness, a, ids }) {
    const search = (await harness.call(a.apiKey, 'people_save_crm_search', { name: 'Isolation saved search', filters: { query: 'Isolda' } })).search.id;
    const share = (await harness.call(a.apiKey, 'people_create_partner_share', {
      partnerName: 'Isolation partner charity', source: { kind: 'tag', name: 'Isolation tag' }, purpose: 'Isolation share purpose',
    })).share.id;
    const contact = ids.contact;
    const qr = (await harness.call(a.apiKey, 'people_generate_member_qr', { contactId: contact })).qrId;
    const preview = (await harness.call(a.apiKey, 'people_run_contacts_bulk_operation', {
      mode: 'preview', operation: { kind: 'add_tags', tags: ['Isolation bulk'] }, selection: { contactIds: [contact] },
    })).previewId;
    return { dashSearch: search, dashShare: share, dashQr: qr, dashPreview: preview };
  },
  entries: {
    people_get_contact_profile: [{ args: (i) => ({ contactId: i.contact }) }],
    people_update_contact_profile: [{ args: (i) => ({ contactId: i.contact, firstName: 'Mallory' }) }],
    people_get_contact_summary: [{ args: (i) => ({ contactId: i.contact }) }],
    people_get_contact_timeline: [{ args: (i) => ({ contactId: i.contact }) }],
    people_list_contact_emails: [{ args: (i) => ({ contactId: i.contact }) }],
    people_list_contact_groups_tab: [{ args: (i) => ({ contactId: i.contact }) }],
    people_get_contact_attendance: [{ args: (i) => ({ contactId: i.contact }) }],
    people_list_contact_tags_api: [{ args: (i) => ({ contactId: i.contact }) }],
    people_add_contact_tag_api: [
      { args: (i) => ({ contactId: i.contact, tagName: 'Planted by B' }) },
      { label: 'A\'s tag on B\'s own call', args: (i) => ({ contactId: i.contact, tagId: i.tag }) },
    ],
    people_remove_contact_tag_api: [{ args: (i) => ({ contactId: i.contact, tagId: i.tag }) }],
    people_list_crm_group_members_api: [{ args: (i) => ({ groupId: i.group }) }],
    people_get_crm_group: [{ args: (i) => ({ groupId: i.group }) }],
    people_execute_saved_crm_search: [{ args: (i) => ({ searchId: i.dashSearch }) }],
    people_list_partner_shares: [{ args: (i) => ({ state: 'all', auditShareId: i.dashShare }) }],
    people_list_partner_contacts: [{ args: (i) => ({ shareId: i.dashShare }) }],
    people_revoke_partner_share: [{ args: (i) => ({ shareId: i.dashShare }) }],
    people_generate_member_qr: [{ args: (i) => ({ contactId: i.contact }) }],
    people_revoke_member_qr: [{ args: (i) => ({ qrId: i.dashQr }) }, { label: 'by contact', args: (i) => ({ contactId: i.contact }) }],
    people_run_contacts_bulk_operation: [{ args: (i) => ({ mode: 'run', previewId: i.dashPreview }) }],
    people_get_contacts_bulk_operation: [{ args: (i) => ({ operationId: i.dashPreview }) }],
    people_find_similar_contacts_ai: [{ args: (i) => ({ contactId: i.contact }) }],
  },
};
