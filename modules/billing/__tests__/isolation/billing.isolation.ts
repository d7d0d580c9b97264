import { randomUUID } from 'node:crypto';
import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Billing: B's key with A's invoice (written as the signed webhook would, since the catalogue stack has no payment sandbox). */
export const isolation: IsolationPart = {
  tables: [],
  secrets: ['STW-APART'],
  async seed({ harness, a }) {
    const invoiceId = randomUUID();
    await harness.pool.query(`INSERT INTO billing_invoices (id, org_id, number, provider_ref, plan_code, status, amount_due_minor, amount_paid_minor, currency, period_start, period_end, paid_at)
      VALUES ($1, $2, 'STW-APART', $3, 'growth', 'paid', 4900, 4900, 'GBP', now(), now() + interval '1 month', now())`, [invoiceId, a.orgId, `in_apart_${invoiceId}`]);
    return { billingInvoice: invoiceId };
  },
  entries: {
    billing_get_invoice: [{ args: (i) => ({ invoiceId: i.billingInvoice }) }],
  },
};
