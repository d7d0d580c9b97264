import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/**
 * Brand voice and public display name: one row per organisation, reached only through the
 * caller's own organisation, so no tool takes a Steward id of them. A's saved voice and public
 * name are seeded so every other probe checks they never reach B. Also A's capability gap
 * reports, which B can neither read nor resolve.
 */
export const isolation: IsolationPart = {
  tables: ['brand_voice_profiles', 'public_profiles', 'capability_gaps'],
  secrets: ['Apart house style whisper', 'Apart Trading Name', 'Apart cannot book the minibus'],
  async seed({ harness, a }) {
    await harness.call(a.apiKey, 'platform_set_brand_voice', { tone: 'Apart house style whisper' });
    await harness.call(a.apiKey, 'platform_set_public_display_name', { tradingName: 'Apart Trading Name', statementDescriptor: 'APART TRADING' });
    const gap = (await harness.call(a.apiKey, 'platform_report_capability_gap', { missing: 'Apart cannot book the minibus' })).gap.gapId as string;
    return { capabilityGap: gap };
  },
  entries: {
    platform_resolve_capability_gap: [{ args: (i) => ({ gapId: i.capabilityGap, resolution: 'Closed by B' }) }],
    platform_apply_brand_voice_template: { notOwned: 'templateId names a preset of the shared library, which no organisation owns' },
    platform_set_public_display_name: {
      notOwned: 'processorAccountId names an account at the payment processor, not a Steward record; one linked to another organisation is refused with conflict before anything is sent (brand-voice.test.ts)',
    },
  },
};
