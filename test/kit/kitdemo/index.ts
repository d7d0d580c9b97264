import path from 'node:path';
import { z } from 'zod';
import { exactlyOne } from '../../../modules/tool';
import { bulkOf, cursorInput, cursorOutput, notFound, restore, softDelete, toolsFor } from '../../../modules/kit';
import { defineModule } from '../../../modules/module';
import { defineWidget } from '../../../modules/widget';
import { kitdemoVisitsMigration } from './migration';
import { countVisits, getVisit, listVisits, recordVisit } from './visits';
import { createKitdemoActivities } from './activities/thanks';
import { getThanks, kitdemoThanksMigration, queueThanks, thanksDelivery } from './thanks';
import { kitdemoWebhooks } from './webhooks/receipts';

/**
 * A module built only with the kit, as a new module would be: one folder, one definition.
 * It lives under test/ and is registered by the kit's test (registerModule), which shows
 * that catalogue, scope checks, migrations, overview, merge and erasure pick it up with no
 * other edit. It borrows the `live:*` scopes, which no module uses yet.
 */
const tools = toolsFor('kitdemo', { read: 'live:read', write: 'live:write' });

const visitSchema = z.object({
  id: z.uuid(), contactId: z.uuid().nullable(), place: z.string(), createdAt: z.string(), deleted: z.boolean(),
}).strict();
const contactId = z.uuid().describe('The contact visited');
const place = z.string().trim().min(1).max(200);

const recordVisitTool = tools.write('record_visit', {
  title: 'Record a visit',
  description: 'Records a pastoral visit to a contact at a place.',
  listed: true,
  input: z.object({ contactId, place }).strict(),
  output: z.object({ visit: visitSchema }).strict(),
  run: async (ctx, input) => ({ visit: await recordVisit(ctx.db, ctx.org.id, input.contactId, input.place) }),
});

const MAX_BULK_VISITS = 5;
const bulkRecordVisitsTool = tools.write('bulk_record_visits', {
  title: 'Record several visits',
  description: `Records up to ${MAX_BULK_VISITS} visits at once; all or none.`,
  input: z.object({ visits: bulkOf(z.object({ contactId, place }).strict(), MAX_BULK_VISITS) }).strict(),
  output: z.object({ visits: z.array(visitSchema) }).strict(),
  run: async (ctx, input) => {
    const visits = [];
    for (const visit of input.visits) visits.push(await recordVisit(ctx.db, ctx.org.id, visit.contactId, visit.place));
    return { visits };
  },
});

const listVisitsTool = tools.read('list_visits', {
  title: 'List visits',
  description: 'Visits, newest first, optionally for one contact; page with nextCursor.',
  input: z.object({ ...cursorInput, contactId: contactId.optional() }).strict(),
  output: z.object({ visits: z.array(visitSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listVisits(ctx.db, ctx.org.id, input),
});

const removeVisitTool = tools.write('remove_visit', {
  title: 'Remove a visit',
  description: 'Removes a visit; kitdemo_restore_visit brings it back.',
  input: z.object({ visitId: z.uuid() }).strict(),
  output: z.object({ visit: visitSchema }).strict(),
  run: async (ctx, input) => {
    await softDelete(ctx.db, { table: 'kitdemo_visits', kind: 'Visit', orgId: ctx.org.id, id: input.visitId });
    return { visit: await getVisit(ctx.db, ctx.org.id, input.visitId) };
  },
});

const restoreVisitTool = tools.write('restore_visit', {
  title: 'Restore a visit',
  description: 'Brings back a removed visit.',
  input: z.object({ visitId: z.uuid() }).strict(),
  output: z.object({ visit: visitSchema }).strict(),
  run: async (ctx, input) => {
    await restore(ctx.db, { table: 'kitdemo_visits', kind: 'Visit', orgId: ctx.org.id, id: input.visitId });
    return { visit: await getVisit(ctx.db, ctx.org.id, input.visitId) };
  },
});

const findVisitTool = tools.read('get_visit', {
  title: 'Get a visit',
  description: 'One visit by its id, or the latest visit to a contact.',
  input: z.object({ visitId: z.uuid().optional(), contactId: contactId.optional() }).strict().refine(...exactlyOne('visitId', 'contactId')),
  output: z.object({ visit: visitSchema }).strict(),
  run: async (ctx, input) => {
    if (input.visitId) return { visit: await getVisit(ctx.db, ctx.org.id, input.visitId) };
    const { visits } = await listVisits(ctx.db, ctx.org.id, { limit: 1, contactId: input.contactId });
    if (!visits[0]) throw notFound('A visit to contact', input.contactId!);
    return { visit: visits[0] };
  },
});

const thanksSchema = z.object({
  id: z.uuid(), visitId: z.uuid(), email: z.string(), status: z.enum(['queued', 'sent', 'refused']), readAt: z.string().nullable(),
}).strict();

const sendThanksTool = tools.write('send_thanks', {
  title: 'Send a thank-you',
  description: 'Emails a thank-you for a visit; it leaves through the outbox and its read receipt is recorded when it comes.',
  input: z.object({ visitId: z.uuid(), email: z.email().max(320) }).strict(),
  output: z.object({ thanks: thanksSchema }).strict(),
  followUp: { kind: 'kitdemo.send_thanks' },
  run: async (ctx, input) => ({ thanks: await queueThanks(ctx.db, ctx.org.id, input.visitId, input.email) }),
});

const getThanksTool = tools.read('get_thanks', {
  title: 'Get a thank-you',
  description: 'Where a thank-you stands: queued, sent or refused, and when it was read.',
  input: z.object({ thanksId: z.uuid() }).strict(),
  output: z.object({ thanks: thanksSchema }).strict(),
  run: async (ctx, input) => ({ thanks: await getThanks(ctx.db, ctx.org.id, input.thanksId) }),
});

export default defineModule({
  name: 'kitdemo',
  title: 'Kit demo',
  description: 'Pastoral visits: a sample module built only with the module kit.',
  tools: [recordVisitTool, bulkRecordVisitsTool, listVisitsTool, removeVisitTool, restoreVisitTool, findVisitTool, sendThanksTool, getThanksTool],
  migrations: [kitdemoVisitsMigration, kitdemoThanksMigration],
  // Durable work, all in this folder: its workflow and follow-up, its activity, its outbox source and its signed webhook.
  workflows: require.resolve('./workflows'),
  activities: [createKitdemoActivities],
  outboxSources: [thanksDelivery],
  webhooks: [kitdemoWebhooks],
  scopes: ['live:read', 'live:write'],
  // It checks contacts exist through the people module's public surface.
  uses: ['people'],
  routes: [],
  contactRefs: [{ table: 'kitdemo_visits', column: 'contact_id', onMerge: 'move', onErase: 'null' }],
  widgets: [defineWidget({
    id: 'kitdemo-visit-card', module: 'kitdemo', title: 'Visit card', description: 'One visit as a card.',
    tools: ['kitdemo_get_visit'], script: path.join(__dirname, 'widgets', 'visit-card.mts'),
  })],
  overview: {
    shape: { kitdemoVisits: z.number().int() },
    compute: async (ctx) => ({ kitdemoVisits: await countVisits(ctx.db, ctx.org.id) }),
  },
  retention: [{
    name: 'kitdemoRemovedVisits',
    purge: async (db) => (await db.query("DELETE FROM kitdemo_visits WHERE deleted_at < now() - interval '30 days'")).rowCount ?? 0,
  }],
  jobs: [{
    name: 'kitdemo.count_visits',
    description: 'Counts the visits recorded by the time of the run',
    everyMs: 3_600_000,
    run: async (pool, { now, orgId }) => {
      const { rows } = await pool.query<{ visits: number }>(
        'SELECT count(*)::int AS visits FROM kitdemo_visits WHERE created_at <= $1 AND ($2::uuid IS NULL OR org_id = $2) AND deleted_at IS NULL',
        [now, orgId ?? null]);
      return { visits: rows[0].visits };
    },
  }],
});
