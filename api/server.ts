import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { buildApp, type AppOptions } from './app';

/** Listens and resolves with the bound URL (port 0 picks a free one). */
export async function listen(options: AppOptions, port: number, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const { app } = buildApp(options);
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      resolve({ server, url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}` });
    });
    server.once('error', reject);
  });
}
