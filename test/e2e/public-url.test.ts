import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { Connection } from '@temporalio/client';
import { connectSnippets } from '../../api/discovery/connect';
import { listen } from '../../api/server';
import { PROJECT_ROOT } from '../../db/config';
import { createTemporalClient } from '../../temporal/client';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/**
 * Behind a reverse proxy or tunnel, PUBLIC_URL is the address everything names: the OAuth
 * discovery documents, server.json and the connect page, whatever address the API listens on.
 */
describe('PUBLIC_URL', () => {
  const publicUrl = 'https://steward.example.org';
  let db: TestDatabase;
  let connection: Connection;
  let server: Server;
  let url: string;
  const saved = process.env.PUBLIC_URL;

  beforeAll(async () => {
    db = await createTestDatabase();
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    process.env.PUBLIC_URL = publicUrl;
    ({ server, url } = await listen({ pool: db.pool, temporal: createTemporalClient(connection, 'default') }, 0));
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.PUBLIC_URL;
    else process.env.PUBLIC_URL = saved;
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await connection?.close();
    await db?.drop();
  });

  const json = async (p: string) => (await fetch(`${url}${p}`)).json() as Promise<any>;

  it('names the public address in the OAuth discovery documents and server.json, not the bound one', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const authorization = await json('/.well-known/oauth-authorization-server');
    expect(authorization.issuer).toBe(publicUrl);
    expect(authorization.authorization_endpoint).toMatch(new RegExp(`^${publicUrl}/`));
    expect(authorization.token_endpoint).toMatch(new RegExp(`^${publicUrl}/`));
    const resource = await json('/.well-known/oauth-protected-resource/api/mcp');
    expect(resource.resource).toBe(`${publicUrl}/api/mcp`);
    expect(resource.authorization_servers).toEqual([publicUrl]);
    const serverJson = await json('/.well-known/mcp/server.json');
    expect(serverJson.remotes[0].url).toBe(`${publicUrl}/api/mcp`);
    expect(serverJson.name).toBe('org.example.steward/steward');
    // An unauthenticated MCP call points the client at the public metadata.
    const challenge = await fetch(`${url}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toContain(`${publicUrl}/.well-known/oauth-protected-resource/api/mcp`);
  });

  it('the connect page fills in the public address and, being public HTTPS, shows no warning', async () => {
    const html = await (await fetch(`${url}/connect`)).text();
    expect(html).toContain(`claude mcp add --transport http steward ${publicUrl}/api/mcp`);
    expect(html).not.toContain('id="public-url-needed"');
    expect(html).not.toContain('127.0.0.1:');
  });

  it('the README carries the connect page\'s set-up for the default local address', () => {
    const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    for (const [name, snippet] of Object.entries(connectSnippets('http://127.0.0.1:3000'))) {
      expect([name, readme.includes(snippet)]).toEqual([name, true]);
    }
  });
});
