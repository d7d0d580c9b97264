import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Grow: B's key with A's forms, submissions and landing pages. */
export const isolation: IsolationPart = {
  tables: ['contacts'],
  secrets: ['Apart connect card', 'Apart page title', 'Apart campaign', 'Apart automation'],
  async seed({ harness, a }) {
    const call = (tool: string, args: Record<string, unknown>) => harness.call(a.apiKey, tool, args);
    const { form } = await call('grow_create_form', {
      name: 'Apart connect card', fields: [{ key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' }],
    });
    await call('grow_publish_form', { formId: form.id });
    const html = await (await fetch(`${harness.url}/grow/f/${a.orgId}/${form.id}`)).text();
    const token = /name="_token" value="([^"]+)"/.exec(html)![1]!;
    const posted = await fetch(`${harness.url}/grow/f/${a.orgId}/${form.id}`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email: 'apart@example.org', _token: token }).toString(),
    });
    const { page } = await call('grow_create_landing_page', { slug: 'apart', title: 'Apart page title', blocks: [{ type: 'text', text: 'Hello' }] });
    const { campaign } = await call('grow_create_campaign', { name: 'Apart campaign', audience: { kind: 'tag', id: '5b0c3a52-5d39-4bd4-9a5a-7f6f2a1c9e10' }, subject: 'Apart campaign', body: 'Hello https://example.org/a' });
    const { group } = await call('groups_create', { name: 'Apart home group', enrolment: 'open' });
    const { automation } = await call('grow_create_automation', { name: 'Apart automation', trigger: { event: 'contact_created' }, steps: [{ type: 'add_tag', tag: 'Apart' }] });
    const runId = '3f1d7a52-8c2e-4b6f-9d0a-1e2f3a4b5c6d';
    await harness.pool.query(`INSERT INTO grow_automation_runs (id, org_id, automation_id, version, contact_id, event_key)
      SELECT $1, $2, $3, 1, contact_id, 'seed' FROM grow_submissions WHERE org_id = $2 AND contact_id IS NOT NULL LIMIT 1`, [runId, a.orgId, automation.id]);
    return {
      growForm: form.id, growSubmission: posted.headers.get('x-steward-submission')!, growPage: page.id, growCampaign: campaign.id, growGroup: group.id,
      growAutomation: automation.id, growAutomationRun: runId,
    };
  },
  entries: {
    grow_create_form: [{ args: (i) => ({
      name: 'B joins A\'s group', creates: ['contact', 'group_join_request'], joinGroupId: i.growGroup,
      fields: [{ key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' }],
    }) }],
    grow_update_form: [{ args: (i) => ({ formId: i.growForm, name: 'Taken over' }) }],
    grow_publish_form: [{ args: (i) => ({ formId: i.growForm }) }],
    grow_close_form: [{ args: (i) => ({ formId: i.growForm }) }],
    grow_list_submissions: [{ args: (i) => ({ formId: i.growForm }) }],
    grow_get_submission: [{ args: (i) => ({ submissionId: i.growSubmission }) }],
    grow_export_submissions: [{ args: (i) => ({ formId: i.growForm }) }],
    grow_create_landing_page: [{ args: (i) => ({ slug: 'b-page', title: 'B', blocks: [{ type: 'form', formId: i.growForm }] }) }],
    grow_update_landing_page: [{ args: (i) => ({ pageId: i.growPage, title: 'Taken over' }) }],
    grow_publish_landing_page: [{ args: (i) => ({ pageId: i.growPage }) }],
    grow_unpublish_landing_page: [{ args: (i) => ({ pageId: i.growPage }) }],
    grow_get_page_stats: [{ args: (i) => ({ pageId: i.growPage }) }],
    grow_get_campaign: [{ args: (i) => ({ campaignId: i.growCampaign }) }],
    grow_update_campaign: [{ args: (i) => ({ campaignId: i.growCampaign, name: 'Taken over' }) }],
    grow_preview_campaign: [{ args: (i) => ({ campaignId: i.growCampaign }) }],
    grow_add_ab_variants: [{ args: (i) => ({ campaignId: i.growCampaign, variable: 'subject', values: ['B'] }) }],
    grow_schedule_campaign: [{ args: (i) => ({ campaignId: i.growCampaign, previewHash: '0'.repeat(64) }) }],
    grow_pause_campaign: [{ args: (i) => ({ campaignId: i.growCampaign }) }],
    grow_cancel_campaign: [{ args: (i) => ({ campaignId: i.growCampaign }) }],
    grow_pick_ab_winner: [{ args: (i) => ({ campaignId: i.growCampaign, variant: 0 }) }],
    grow_get_campaign_report: [{ args: (i) => ({ campaignId: i.growCampaign }) }],
    grow_send_test_email: [{ args: (i) => ({ campaignId: i.growCampaign, contactId: '5b0c3a52-5d39-4bd4-9a5a-7f6f2a1c9e11' }) }],
    grow_create_automation: [{ args: (i) => ({ name: 'B', trigger: { event: 'form_submitted', formId: i.growForm }, steps: [{ type: 'add_tag', tag: 'B' }] }) }],
    grow_update_automation: [{ args: (i) => ({ automationId: i.growAutomation, name: 'Taken over' }) }],
    grow_activate_automation: [{ args: (i) => ({ automationId: i.growAutomation }) }],
    grow_pause_automation: [{ args: (i) => ({ automationId: i.growAutomation }) }],
    grow_list_automation_runs: [{ args: (i) => ({ automationId: i.growAutomation }) }],
    grow_cancel_automation_run: [{ args: (i) => ({ runId: i.growAutomationRun }) }],
  },
};
