import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The floor behind HTTP: one POST with a JSON body, answered with the floor's JSON result, on a bare
 * node:http server (keep-alive, no framework, no authentication). Beside the floor called in process
 * it shows what serving a call over HTTP costs on its own, so the gap between the floor and a tool
 * call over MCP can be split into HTTP and Steward's own work.
 */
export async function serveFloorOverHttp(callFloor: (orgId: string, contactId: string) => Promise<unknown>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        try {
          const { orgId, contactId } = JSON.parse(Buffer.concat(chunks).toString()) as { orgId: string; contactId: string };
          const body = JSON.stringify(await callFloor(orgId, contactId));
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
        } catch (error) {
          res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) }));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/floor`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
