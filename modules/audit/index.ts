import { defineModule } from '../module';
import { recordProposalCreation, recordProposalDecision } from './api';
import { auditTrail } from './migrations/2026.11.28T07.00.00.audit-trail';
import { auditRetention as auditRetentionMigration } from './migrations/2026.11.28T07.00.01.audit-retention';
import { auditModels } from './models';
import { auditPlaybooks } from './playbooks';
import { auditRetention } from './retention';
import { auditTools } from './tools';

/**
 * The audit trail: an append-only, tamper-evident log of every change (each write tool call writes
 * its event in its own transaction, through the kernel: modules/audit/record.ts), every agent action
 * and every export, with the tools to read, explain, verify and export it.
 */
export default defineModule({
  name: 'audit',
  title: 'Audit',
  description: 'Append-only, hash-chained audit log of every change, agent action and export: who did it and on whose behalf, what changed (before and after), approvals, and a chain check.',
  tools: auditTools,
  models: [...auditModels],
  migrations: [auditTrail, auditRetentionMigration],
  scopes: ['audit:read', 'audit:export'],
  routes: [],
  retention: auditRetention,
  // The contacts an event names. Never moved by a merge (an event records what happened to the id it
  // named) and never changed by erasure's generic step: the trigger on contacts redacts those events
  // (migration 2026.11.28T07.00.00), as the application role may not update audit events.
  contactRefs: [{ table: 'audit_events', column: 'contact_ids', list: true, onMerge: 'custom', onErase: 'custom' }],
  playbooks: auditPlaybooks,
  // Proposals live beneath every module (kernel/proposals.ts), which may not import this one: it tells these hooks instead.
  proposalCreated: recordProposalCreation,
  proposalDecided: recordProposalDecision,
  uses: [],
});
