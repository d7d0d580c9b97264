// Scratch: main-thread CPU per MCP tools/call POST vs bridge POST, with a caller that answers at once.
import express from 'express';
import http from 'node:http';
import { fork } from 'node:child_process';
import { mcpRouter } from '../api/mcp/router';
import { agentBridgeRouter } from '../api/bridges/agent';
import { ALL_SCOPES } from '../core/scopes';

const principal = { orgId: '351dfed8-1bc9-4a45-bcc4-9e5b73a935c0', userId: '451dfed8-1bc9-4a45-bcc4-9e5b73a935c0', role: 'owner', scopes: [...ALL_SCOPES], intent: null, credentialId: 'k', credentialKind: 'api_key' };
const contact = { contact: { id: '551dfed8-1bc9-4a45-bcc4-9e5b73a935c0', firstName: 'Pat', lastName: 'Smith', preferredName: null, displayName: 'Pat Smith', email: 'pat@example.org', phone: null, address: null, status: 'active', membershipStatus: null, tags: [], customFields: {}, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' } };
const caller = { call: async () => contact, approvals: undefined } as any;
const auth = [(req: any, _res: any, next: any) => { req.auth = { token: 'x', clientId: 'x', scopes: [], extra: { principal } }; next(); }];

if (process.argv[2] === 'client') {
  const [port, path, n] = [process.argv[3], process.argv[4], Number(process.argv[5])];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const mcp = path === 'mcp';
  const body = mcp
    ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'people_get_contact', arguments: { contactId: contact.contact.id } } })
    : JSON.stringify({ tool: 'people_get_contact', arguments: { contactId: contact.contact.id } });
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: 'Bearer x', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  const one = () => new Promise<void>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: mcp ? '/api/mcp' : '/api/agent/invoke', method: 'POST', headers, agent }, (res) => {
      let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(text))));
    });
    req.on('error', reject); req.end(body);
  });
  (async () => { for (let i = 0; i < n; i++) await one(); process.send!('done'); process.exit(0); })();
} else {
  const app = express();
  app.use(mcpRouter(caller, auth as any));
  app.use(express.json());
  app.use(agentBridgeRouter(caller, auth as any));
  const server = app.listen(0, async () => {
    const port = (server.address() as any).port;
    const run = (path: string, n: number) => new Promise<number>((resolve) => {
      const child = fork(__filename, ['client', String(port), path, String(n)], { execArgv: ['--import', 'tsx'] });
      let start: NodeJS.CpuUsage | undefined;
      child.on('message', () => { const u = process.cpuUsage(start); resolve((u.user + u.system) / 1000 / n); });
      start = process.cpuUsage();
    });
    for (let round = 0; round < 3; round++) {
      for (const path of (process.env.PATHS ?? 'bridge,mcp').split(',')) {
        global.gc?.();
        const ms = await run(path, Number(process.env.N ?? 3000));
        console.log(`round ${round} ${path}: ${ms.toFixed(3)} ms CPU per call`);
      }
    }
    server.close(); process.exit(0);
  });
}
