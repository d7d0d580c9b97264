import { errorFields, log, redirectLog, safeFields } from '../../core/log';

describe('the service log', () => {
  it('keeps only allow-listed fields: never a message, SQL or its parameters', () => {
    const sequelizeError = Object.assign(new Error('insert failed for maria@example.org'), {
      name: 'SequelizeUniqueConstraintError', sql: 'INSERT INTO contacts VALUES ($1)', parameters: ['maria@example.org'],
      original: { code: '23505', constraint: 'contacts_email_key', table: 'contacts', detail: 'Key (email)=(maria@example.org)' },
    });
    expect(errorFields(sequelizeError)).toEqual({ errorName: 'SequelizeUniqueConstraintError', sqlstate: '23505', constraint: 'contacts_email_key', table: 'contacts' });
    expect(safeFields({ tool: 'people_create_contact', message: 'Maria, 34, consented', args: { email: 'x@y.org' }, stack: 'at x' })).toEqual({ tool: 'people_create_contact' });
  });

  it('masks an email even in an allowed field, and writes one JSON line per event', () => {
    const lines: string[] = [];
    const restore = redirectLog((line) => lines.push(line), 'info');
    try {
      log('debug', 'below the level');
      log('warn', 'tool call failed', { code: 'not_found', where: 'maria@example.org', message: 'No contact has the email maria@example.org' });
    } finally {
      restore();
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'warn', event: 'tool call failed', code: 'not_found', where: '[email]' });
    expect(lines[0]).not.toContain('maria');
  });
});
