import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Audit: B's key with A's event ids, A's people and A's records as targets. */
export const isolation: IsolationPart = {
  tables: ['audit_chain_heads'],
  secrets: ['Apart audited fund'],
  async seed({ harness, a }) {
    const { fund } = await harness.call(a.apiKey, 'giving_create_fund', { name: 'Apart audited fund' });
    const { rows } = await harness.pool.query('SELECT id::text, credential_id FROM audit_events WHERE org_id = $1 AND tool = $2', [a.orgId, 'giving_create_fund']);
    return { auditEvent: rows[0].id as string, auditFund: fund.id as string, auditCredential: rows[0].credential_id as string, auditUser: a.ownerUserId };
  },
  entries: {
    audit_get_event: [{ args: (i) => ({ eventId: i.auditEvent }) }],
    audit_list_events: [{ args: (i) => ({ actorUserId: i.auditUser, onBehalfOfUserId: i.auditUser, targetId: i.auditFund }), outcome: 'no_leak' }],
    audit_get_entity_history: [{ args: (i) => ({ targetId: i.auditFund }), outcome: 'no_leak' }],
    audit_list_agent_actions: [{ args: (i) => ({ onBehalfOfUserId: i.auditUser, credentialId: i.auditCredential }), outcome: 'no_leak' }],
    audit_export_events: {
      notOwned: "its ids are filters over the caller's own organisation's events (the same as audit_list_events, probed above), and every call becomes a proposal first; A's ids match none of B's events",
    },
  },
};
