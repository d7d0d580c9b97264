import { redirectLog } from '../../core/log';
import { Harness, type TestOrg } from '../helpers/harness';

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
    harness = await Harness.start();
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
    const reports = entries.filter((entry) => entry.level === 'warn' || entry.level === 'error');
    // The call's workflow failing too is the same failure, below the default level.
    expect(reports).toEqual([expect.objectContaining({ event: 'tool call failed', code: 'not_found', tool: 'people_add_crm_group_member', orgId: org.orgId })]);
    expect(reports[0].workflowId).toEqual(expect.any(String));
    expect(Object.keys(reports[0])).not.toContain('message');
  });
});
