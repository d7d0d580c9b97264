import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp, type AppOptions } from './app';

/**
 * Listens and resolves with the bound URL (port 0 picks a free one). The app is
 * built once the port is known, because the OAuth issuer and resource URLs
 * contain it; PUBLIC_URL (or options.publicUrl) overrides it behind a proxy.
 */
export async function listen(options: AppOptions, port: number, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const server = http.createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
      const { app } = buildApp({ ...options, publicUrl: options.publicUrl ?? process.env.PUBLIC_URL ?? url });
      server.on('request', app);
      resolve({ server, url });
    });
  });
}
