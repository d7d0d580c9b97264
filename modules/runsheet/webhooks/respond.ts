import express, { Router } from 'express';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { SA_KIND, SA_ORG } from '../../../core/search-attributes';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, withTenantTransaction } from '../../../db/pool';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { nameOr, namesOf, requirePlan, requireServiceType } from '../common';
import { RESPOND_PATH, readRespondToken } from '../links';
import { planLabel } from '../messages';
import { respond, type RespondResult } from '../scheduling';
import { offerAnsweredSignal, substitutionWorkflowId } from '../workflows/substitution';
import { escapeHtml } from '../../../core/html';

/**
 * The page a volunteer's own link opens (links.ts): GET shows what they were asked and two buttons
 * (mail scanners follow links, so GET changes nothing); POST records their answer exactly as
 * runsheet_respond_to_request would, then starts the substitute search a decline opened, or wakes the
 * search an answer to an offer settles. The token is checked before anything else is read.
 */


function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>`
    + '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.6rem 1.2rem;margin:.3rem 0}textarea{width:100%}</style></head>'
    + `<body>${body}</body></html>`;
}

const NOT_RECOGNISED = page('Link not recognised', '<h1>This link is not recognised</h1><p>It may have been copied incompletely. Ask your scheduler.</p>');

interface Asked { kind: 'request' | 'offer'; label: string; name: string; positions: string[]; planPersonIds: string[]; offerId: string | null; offerStatus: string | null }

/** What the message behind a token asked, read in its organisation's tenant transaction; null when it is gone or asked nothing. */
async function askedBy(db: Parameters<typeof requirePlan>[0], orgId: string, notificationId: string): Promise<Asked | null> {
  const message = await queryOne<{ kind: string; contact_id: string | null; plan_id: string | null }>(db,
    'SELECT kind, contact_id, plan_id FROM runsheet_notifications WHERE org_id = $1 AND id = $2', [orgId, notificationId]);
  if (!message?.contact_id || !message.plan_id || (message.kind !== 'request' && message.kind !== 'offer')) return null;
  const plan = await requirePlan(db, orgId, message.plan_id);
  const label = planLabel(plan, (await requireServiceType(db, orgId, plan.service_type_id)).name);
  const name = nameOr(await namesOf(db, orgId, [message.contact_id]), message.contact_id);
  if (message.kind === 'offer') {
    const offer = await queryOne<{ id: string; status: string; position_name: string }>(db, `SELECT o.id, o.status, p.name AS position_name FROM runsheet_offers o
      JOIN runsheet_substitutions s ON s.id = o.substitution_id AND s.org_id = o.org_id JOIN runsheet_positions p ON p.id = s.position_id AND p.org_id = s.org_id
      WHERE o.org_id = $1 AND o.message_id = $2`, [orgId, notificationId]);
    if (!offer) return null;
    return { kind: 'offer', label, name, positions: [offer.position_name], planPersonIds: [], offerId: offer.id, offerStatus: offer.status };
  }
  const places = await queryRows<{ id: string; position_name: string }>(db, `SELECT pp.id,
      p.name || COALESCE(' at ' || to_char(t.starts_at AT TIME ZONE $4, 'HH24:MI'), '') AS position_name FROM runsheet_plan_people pp
    JOIN runsheet_positions p ON p.id = pp.position_id AND p.org_id = pp.org_id LEFT JOIN runsheet_plan_times t ON t.id = pp.plan_time_id AND t.org_id = pp.org_id
    WHERE pp.org_id = $1 AND pp.plan_id = $2 AND pp.contact_id = $3 ORDER BY lower(p.name), t.starts_at NULLS FIRST`,
  [orgId, message.plan_id, message.contact_id, plan.time_zone]);
  if (places.length === 0) return null;
  return { kind: 'request', label, name, positions: places.map((place) => place.position_name), planPersonIds: places.map((place) => place.id), offerId: null, offerStatus: null };
}

/** Starts the substitute search a committed decline or blockout opened; starting it twice is harmless. */
export async function startSubstituteSearch(deps: WebhookDeps, orgId: string, substitutionId: string): Promise<void> {
  await deps.temporal.workflow.start('runsheetSubstitutionWorkflow', {
    taskQueue: deps.taskQueue, workflowId: substitutionWorkflowId(substitutionId), args: [{ orgId, substitutionId }],
    typedSearchAttributes: [{ key: SA_ORG, value: orgId }, { key: SA_KIND, value: 'substitute_search' }],
  }).catch((error: unknown) => {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  });
}

/** After the answer committed: a search the decline opened starts; a search waiting on this offer wakes. Both are safe to repeat. */
async function followUp(deps: WebhookDeps, orgId: string, results: readonly RespondResult[]): Promise<void> {
  for (const result of results) {
    if (result.substitutionId) await startSubstituteSearch(deps, orgId, result.substitutionId);
    if (result.offerAnswered) {
      // A search that has already moved on (the offer expired meanwhile) has nothing left to hear.
      await deps.temporal.workflow.getHandle(result.offerAnswered.workflowId).signal(offerAnsweredSignal, result.offerAnswered.offerId).catch(() => undefined);
    }
  }
}

function respondRouter(deps: WebhookDeps): Router {
  const router = Router();
  const raw = express.raw({ type: () => true, limit: '16kb' });

  router.get(`${RESPOND_PATH}/:token`, async (req, res, next) => {
    try {
      const named = readRespondToken(req.params.token);
      if (!named) return void res.status(404).type('html').send(NOT_RECOGNISED);
      const asked = await withTenantTransaction(deps.pool, named.orgId, (db) => askedBy(db, named.orgId, named.notificationId), { readOnly: true });
      if (!asked) return void res.status(404).type('html').send(NOT_RECOGNISED);
      if (asked.kind === 'offer' && asked.offerStatus !== 'offered') {
        return void res.status(200).type('html').send(page('Offer closed', `<h1>This offer is ${escapeHtml(asked.offerStatus ?? 'closed')}</h1><p>Thank you all the same, ${escapeHtml(asked.name)}.</p>`));
      }
      const action = escapeHtml(req.originalUrl);
      res.status(200).type('html').send(page('Can you serve?', `<h1>${escapeHtml(asked.positions.join(' and '))}</h1><p>${escapeHtml(asked.label)}</p>`
        + `<form method="post" action="${action}"><input type="hidden" name="response" value="accept"><button type="submit">Yes, I can serve</button></form>`
        + `<form method="post" action="${action}"><input type="hidden" name="response" value="decline"><label>Anything to say? <textarea name="reason" maxlength="500"></textarea></label><button type="submit">Sorry, I can't</button></form>`));
    } catch (error) {
      next(error);
    }
  });

  router.post(`${RESPOND_PATH}/:token`, raw, async (req, res, next) => {
    try {
      const named = readRespondToken(req.params.token);
      if (!named) return void res.status(404).type('html').send(NOT_RECOGNISED);
      const form = new URLSearchParams(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
      const response = form.get('response');
      if (response !== 'accept' && response !== 'decline') {
        return void res.status(400).type('html').send(page('Nothing changed', '<h1>Nothing changed</h1><p>Choose yes or no on the page the link opened.</p>'));
      }
      const reason = form.get('reason')?.trim().slice(0, 500) || undefined;
      let results: RespondResult[];
      try {
        results = await withTenantTransaction(deps.pool, named.orgId, async (db) => {
          const asked = await askedBy(db, named.orgId, named.notificationId);
          if (!asked) return [];
          if (asked.offerId) return [await respond(db, named.orgId, { offerId: asked.offerId, response, reason })];
          const answers: RespondResult[] = [];
          for (const planPersonId of asked.planPersonIds) answers.push(await respond(db, named.orgId, { planPersonId, response, reason }));
          return answers;
        });
      } catch (error) {
        if (error instanceof StewardError && error.code === 'conflict') {
          return void res.status(409).type('html').send(page('Not changed', `<h1>Your answer could not be recorded</h1><p>${escapeHtml(error.message)}.</p>`));
        }
        throw error;
      }
      if (results.length === 0) return void res.status(404).type('html').send(NOT_RECOGNISED);
      await followUp(deps, named.orgId, results);
      res.status(200).type('html').send(page('Thank you', response === 'accept'
        ? '<h1>Thank you: you are down to serve</h1>' : '<h1>Thank you for letting us know</h1><p>Your scheduler will find someone else.</p>'));
    } catch (error) {
      next(error);
    }
  });
  return router;
}

export const runsheetWebhooks: ModuleWebhook = { paths: [`${RESPOND_PATH}/`], router: respondRouter };
