import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Grow: B's key with A's forms, submissions and landing pages. */
export const isolation: IsolationPart = {
  tables: ['contacts'],
  secrets: ['Apart connect card', 'Apart page title'],
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
    return { growForm: form.id, growSubmission: posted.headers.get('x-steward-submission')!, growPage: page.id };
  },
  entries: {
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
  },
};
