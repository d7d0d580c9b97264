import type { IsolationPart } from '../../../../test/e2e/isolation/part';
import type { Harness, TestOrg } from '../../../../test/helpers/harness';

async function finished(harness: Harness, org: TestOrg, jobId: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { job } = await harness.call(org.apiKey, 'people_get_data_quality_job', { jobId });
    if (job.status === 'completed') return;
    if (job.status === 'failed') throw new Error(`data quality job ${jobId} failed`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`data quality job ${jobId} did not finish`);
}

/**
 * Data quality: B's key with A's scan job, fix job, duplicate group, likely pair, dismissal and
 * review queue item, and A's contacts as a fix's scope.
 */
export const isolation: IsolationPart = {
  tables: ['dq_jobs', 'dq_scans', 'dq_scan_hits', 'dq_duplicates', 'dq_dismissals', 'dq_previews', 'dq_changes', 'dq_queue', 'contacts'],
  secrets: ['Isolationdq'],
  async seed({ harness, a }) {
    const contact = async (firstName: string, email: string) => (await harness.call(a.apiKey, 'people_create_contact', {
      firstName, lastName: 'Isolationdq', email, dateOfBirth: '01/01/1970', addressCity: 'Leeds', addressPostcode: 'LS6 2QE',
    })).contact.id as string;
    // A likely pair (one letter apart, same birthday and postcode: confidence 70+, so also a queue item) and an exact group (same email).
    await contact('Quillan', 'quillan@a.example');
    await contact('Quillon', 'quillon@a.example');
    await contact('Ottoline', 'shared-dq@a.example');
    await contact('Rosamund', 'SHARED-DQ@a.example');
    const dqContact = (await harness.call(a.apiKey, 'people_create_contact', { firstName: 'QUENTINA', lastName: 'ISOLATIONDQ', email: 'quentina@a.example' })).contact.id;
    const preview = await harness.call(a.apiKey, 'people_preview_data_quality_fix', { fix: 'name_case', contactIds: [dqContact] });
    const fix = await harness.call(a.apiKey, 'people_apply_data_quality_fix', { fix: 'name_case', previewHash: preview.previewHash, contactIds: [dqContact] });
    await finished(harness, a, fix.job.id);
    const scan = await harness.call(a.apiKey, 'people_run_data_quality_scan', {});
    await finished(harness, a, scan.job.id);
    const groups = (await harness.call(a.apiKey, 'people_list_data_quality_duplicates', { limit: 200 })).items;
    const group = groups.find((g: { contacts: Array<{ email: string | null }> }) => g.contacts.some((c) => c.email === 'shared-dq@a.example')).id;
    const pairs = (await harness.call(a.apiKey, 'people_list_data_quality_fuzzy_pairs', { limit: 200 })).items;
    const pair = pairs.find((p: { contacts: Array<{ email: string | null }> }) => p.contacts.some((c) => c.email === 'quillan@a.example')).id;
    const item = (await harness.call(a.apiKey, 'people_list_data_quality_queue', { kind: 'fuzzy_pair', limit: 200 })).items[0].id;
    // A dismissal of a group other than the probed one.
    const other = groups.find((g: { id: string }) => g.id !== group);
    if (other) await harness.call(a.apiKey, 'people_dismiss_data_quality_duplicate_groups', { groupIds: [other.id] });
    else await harness.call(a.apiKey, 'people_dismiss_data_quality_duplicate_groups', { groupIds: [group] });
    const dismissal = (await harness.call(a.apiKey, 'people_get_data_quality_dismissed_counts', {})).dismissals[0].dismissalId;
    return { dqContact, dqFixJob: fix.job.id, dqScanJob: scan.job.id, dqGroup: group, dqPair: pair, dqDismissal: dismissal, dqQueueItem: item };
  },
  entries: {
    people_get_data_quality_job: [{ label: 'scan', args: (i) => ({ jobId: i.dqScanJob }) }, { label: 'fix', args: (i) => ({ jobId: i.dqFixJob }) }],
    people_trigger_data_quality_jobs: [{ args: (i) => ({ jobs: [{ kind: 'undo_fix', fixJobId: i.dqFixJob }] }) }],
    people_review_data_quality_queue_item: [{ args: (i) => ({ itemId: i.dqQueueItem, decision: 'dismiss' }) }],
    people_dismiss_data_quality_duplicate_groups: [{ args: (i) => ({ groupIds: [i.dqGroup] }) }],
    people_dismiss_data_quality_fuzzy_pairs: [{ args: (i) => ({ pairIds: [i.dqPair] }) }],
    people_restore_data_quality_dismissals: [{ args: (i) => ({ dismissalIds: [i.dqDismissal] }) }],
    people_merge_data_quality_via_dashboard: [{ args: (i) => ({ duplicateId: i.dqGroup, keepContactId: i.contact, mergeContactId: i.relative }) }],
    people_preview_data_quality_fix: [{ args: (i) => ({ fix: 'name_case', contactIds: [i.dqContact] }) }, { label: 'unscoped', args: () => ({ fix: 'name_case' }), outcome: 'no_leak' }],
    people_preview_data_quality_special_fix: [{ args: (i) => ({ fix: 'split_full_name', contactIds: [i.dqContact] }) }],
    people_apply_data_quality_fix: [{ args: (i) => ({ fix: 'name_case', previewHash: '0'.repeat(64), contactIds: [i.dqContact] }) }],
    people_apply_data_quality_special_fix: [{ args: (i) => ({ fix: 'split_full_name', previewHash: '0'.repeat(64), contactIds: [i.dqContact] }) }],
  },
};
