import type { Alert, AlertRule } from '../../../module';
import { countActiveCrisisHolds } from './crisis';
import { EXPIRING_WITHIN_DAYS, countChecksByStatus } from './safeguarding';

/** Safeguarding checks past their expiry (urgent) or expiring soon (warning), from the status the daily run keeps. */
export const safeguardingChecksRule: AlertRule = {
  id: 'people.safeguarding_checks_expiring',
  description: `Safeguarding checks that have expired (urgent) or expire within ${EXPIRING_WITHIN_DAYS} days (warning); needs people:safeguarding.`,
  scope: 'people:safeguarding',
  async evaluate(ctx) {
    const counts = await countChecksByStatus(ctx.db, ctx.org.id);
    const alerts: Alert[] = [];
    const checks = (n: number) => (n === 1 ? '1 safeguarding check' : `${n} safeguarding checks`);
    if (counts.overdue > 0) {
      alerts.push({
        severity: 'urgent', title: `${checks(counts.overdue)} ${counts.overdue === 1 ? 'has' : 'have'} expired`,
        reason: `${checks(counts.overdue)} passed ${counts.overdue === 1 ? 'its' : 'their'} expiry date; renew before the person serves again.`,
        count: counts.overdue, actWith: { tool: 'people_list_safeguarding_checks', args: { status: 'overdue' } },
      });
    }
    if (counts.expiring > 0) {
      alerts.push({
        severity: 'warning', title: `${checks(counts.expiring)} expiring soon`,
        reason: `${checks(counts.expiring)} expire${counts.expiring === 1 ? 's' : ''} within ${EXPIRING_WITHIN_DAYS} days.`,
        count: counts.expiring, actWith: { tool: 'people_list_safeguarding_checks', args: { status: 'expiring' } },
      });
    }
    return alerts;
  },
};

/** People on a crisis hold: someone should be in touch, and their messages wait. */
export const crisisHoldsRule: AlertRule = {
  id: 'people.crisis_holds',
  description: 'People on a crisis hold after a counselling referral read as a crisis: a person should reach them, and their messages wait until the hold is cleared.',
  scope: 'people:read',
  async evaluate(ctx) {
    const held = await countActiveCrisisHolds(ctx.db, ctx.org.id);
    if (held === 0) return [];
    return [{
      severity: 'urgent', title: `${held === 1 ? '1 person is' : `${held} people are`} on a crisis hold`,
      reason: `${held === 1 ? 'A referral' : `${held} referrals`} read as a crisis; messages to ${held === 1 ? 'them' : 'these people'} wait until a staff member clears the hold.`,
      count: held, actWith: { tool: 'people_list_crisis_holds' },
    }];
  },
};

export const careAlertRules: readonly AlertRule[] = [safeguardingChecksRule, crisisHoldsRule];
