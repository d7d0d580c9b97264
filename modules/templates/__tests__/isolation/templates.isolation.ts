import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Templates: B's key with A's templates and versions. */
export const isolation: IsolationPart = {
  tables: ['templates', 'template_versions'],
  secrets: ['Apart rota reminder wording', 'Apart rota template'],
  async seed({ harness, a }) {
    const created = (await harness.call(a.apiKey, 'templates_create_template', {
      name: 'Apart rota template', channel: 'sms', purpose: 'service', body: 'Apart rota reminder wording for {{first_name}}',
    }));
    const draft = (await harness.call(a.apiKey, 'templates_create_version', { templateId: created.template.id, body: 'Apart rota reminder wording, v2' })).version.id;
    const whatsapp = (await harness.call(a.apiKey, 'templates_create_template', {
      name: 'Apart rota template (WhatsApp)', channel: 'whatsapp', purpose: 'service', body: 'Apart rota reminder wording for {{first_name}}, see you.',
    })).version.id;
    return { templateA: created.template.id, templateVersionA: created.version.id, templateDraftA: draft, templateWhatsAppVersionA: whatsapp };
  },
  entries: {
    templates_get_template: [{ args: (i) => ({ templateId: i.templateA }) }],
    templates_create_version: [{ args: (i) => ({ templateId: i.templateA, body: 'B edits' }) }],
    templates_render_preview: [
      { label: 'version', args: (i) => ({ versionId: i.templateVersionA }) },
      { label: 'template', args: (i) => ({ templateId: i.templateA }) },
    ],
    templates_validate_version: [{ args: (i) => ({ versionId: i.templateDraftA }) }],
    templates_activate_version: [{ args: (i) => ({ versionId: i.templateDraftA }) }],
    templates_submit_whatsapp_template: [{ args: (i) => ({ versionId: i.templateWhatsAppVersionA }) }],
    templates_archive_template: [{ args: (i) => ({ templateId: i.templateA }) }],
    templates_diff_versions: [{ args: (i) => ({ fromVersionId: i.templateVersionA, toVersionId: i.templateDraftA }) }],
    templates_list_templates: [{ args: () => ({}), outcome: 'no_leak' }],
  },
};
