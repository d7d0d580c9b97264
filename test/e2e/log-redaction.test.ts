import { redirectLog } from '../../core/log';
import type { ToolPlan } from '../../core/tool-plan';
import { guarded } from '../../modules/activity-kit';
import { Harness, type TestOrg } from '../helpers/harness';

/** The tool whose runs hit a unique violation that no tool code translates (as a probe once found). */
const RACING_TOOL = 'people_create_crm_group';
const LEAKED = 'lena.leak@example.org';

/**
 * Issue 23 item 12: a failed call is logged once, by code, tool and ids, and never with the
 * personal data its arguments and its user-facing message carry.
 */
describe('logs hold no personal data', () => {
  let harness: Harness;
  let org: TestOrg;
  const lines: string[] = [];
  const printed: string[] = [];
  let restore: () => void;
  let spies: jest.SpyInstance[] = [];

  beforeAll(async () => {
    harness = await Harness.start({
      wrapActivities: (activities) => ({
        ...activities,
        runTool: (plan: ToolPlan) => (plan.tool === RACING_TOOL && plan.args.name === 'Racing'
          ? guarded(async () => {
            // What Postgres and Sequelize attach to a unique violation: the values, the SQL and its parameters.
            throw Object.assign(new Error(`duplicate key value violates unique constraint "contacts_email_key"`), {
              code: '23505', constraint: 'contacts_email_key', table: 'contacts', detail: `Key (email)=(${LEAKED}) already exists.`,
              sql: 'INSERT INTO contacts (email) VALUES ($1)', parameters: [LEAKED],
            });
          })
          : activities.runTool(plan)),
      }),
    });
    org = await harness.createOrg();
  });
  afterAll(async () => {
    await harness?.close();
  });
  beforeEach(() => {
    lines.length = 0;
    printed.length = 0;
    restore = redirectLog((line) => lines.push(line), 'debug');
    // Anything printed around the log (console, stderr) is caught too.
    const keep = (...args: unknown[]) => void printed.push(args.map(String).join(' '));
    spies = [jest.spyOn(console, 'error').mockImplementation(keep), jest.spyOn(console, 'warn').mockImplementation(keep), jest.spyOn(console, 'log').mockImplementation(keep)];
  });
  afterEach(() => {
    restore();
    spies.forEach((spy) => spy.mockRestore());
  });

  it('logs a call that fails with an email in its arguments once, by code and tool, without the email or a stack', async () => {
    const email = 'maria.private@example.org';
    const group = await harness.invoke(org.apiKey, 'people_create_crm_group', { name: 'Welcome team' });
    expect(group.body.ok).toBe(true);
    const failed = await harness.invoke(org.apiKey, 'people_add_crm_group_member', { groupId: group.body.result.group?.id ?? group.body.result.id, email });
    expect(failed.body.error?.code).toBe('not_found');
    // The caller still hears the message it needs.
    expect(failed.body.error?.message).toContain(email);

    const everything = [...lines, ...printed].join('\n');
    expect(everything).not.toContain(email);
    expect(everything).not.toMatch(/\n\s+at /);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // What the default level (info) shows.
    const reports = entries.filter((entry) => entry.level !== 'debug');
    // The call's workflow failing too is the same failure, below the default level.
    expect(reports).toEqual([expect.objectContaining({ event: 'tool call failed', code: 'not_found', tool: 'people_add_crm_group_member', orgId: org.orgId })]);
    expect(reports[0].workflowId).toEqual(expect.any(String));
    expect(Object.keys(reports[0])).not.toContain('message');
  });

  it('answers conflict for a unique violation a retry did not cure, and logs its SQLSTATE, never its values or parameters', async () => {
    const answer = await harness.invoke(org.apiKey, RACING_TOOL, { name: 'Racing' });
    expect(answer.body.error?.code).toBe('conflict');
    const everything = [...lines, ...printed].join('\n');
    expect(everything).not.toContain(LEAKED);
    expect(everything).not.toContain('INSERT INTO');
    // The wrapper stands in for runTool, so the SDK's own lines about the activity are what is logged here.
    const attempts = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.event === 'Activity failed' && entry.activityType === 'runTool');
    // Attempt 1 is retried (a race may be gone) and goes by its SQLSTATE; attempt 2 answers conflict.
    expect(attempts).toEqual([
      expect.objectContaining({ errorName: 'DatabaseError', sqlstate: '23505', constraint: 'contacts_email_key', table: 'contacts' }),
      expect.objectContaining({ code: 'conflict' }),
    ]);
  });
});
