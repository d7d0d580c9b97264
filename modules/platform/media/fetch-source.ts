import { promises as dns } from 'node:dns';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { StewardError } from '../../../core/errors';
import { sizeInWords } from '../../../core/sizes';

/**
 * Fetches a file from a caller's URL without letting the URL reach inside the network Steward
 * runs in (server-side request forgery): public HTTPS on port 443 only; every address the name
 * resolves to must be public, and the connection goes to the address that was vetted (so a
 * second, different DNS answer cannot slip in between check and use); redirects are followed by
 * hand, each hop vetted the same way, a few at most; the body is capped while it streams.
 */

/** How names become addresses and addresses become TLS connections. Production uses DNS and TCP. */
export interface SourceNetwork {
  resolve(hostname: string): Promise<string[]>;
  connect(target: { address: string; port: number; servername: string }): Duplex;
}

export const systemNetwork: SourceNetwork = {
  async resolve(hostname) {
    const answers = await dns.lookup(hostname, { all: true, verbatim: true });
    return answers.map((answer) => answer.address);
  },
  connect({ address, port, servername }) {
    // servername keeps SNI and certificate checking on the URL's host name, not the address.
    return tls.connect({ host: address, port, servername, ALPNProtocols: ['http/1.1'] });
  },
};

let network: SourceNetwork = systemNetwork;

/**
 * Replaces how names resolve and connections are made (a test routes a made-up public name to
 * its own server this way, to prove a redirect from there to a private address is refused).
 * The vetting of addresses and URLs is the same whichever network is in use.
 */
export function useSourceNetwork(replacement: SourceNetwork | null): void {
  network = replacement ?? systemNetwork;
}

export const MAX_REDIRECTS = 3;
const TIMEOUT_MS = 15_000;

/** Addresses a fetch may never reach: private, loopback, link-local, shared (CGNAT), multicast, reserved and documentation ranges. */
// Two lists: one BlockList matches IPv4 addresses against IPv6 rules too (as IPv4-mapped), which would refuse every IPv4 address.
const NON_PUBLIC_V4 = new BlockList();
const NON_PUBLIC_V6 = new BlockList();
for (const [network4, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NON_PUBLIC_V4.addSubnet(network4, prefix, 'ipv4');
for (const [network6, prefix] of [
  ['::', 128], ['::1', 128],
  // IPv4-mapped and -translated forms, and tunnels that embed an IPv4 address: refused outright.
  ['::ffff:0:0', 96], ['::', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['2002::', 16], ['2001::', 32],
  ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) NON_PUBLIC_V6.addSubnet(network6, prefix, 'ipv6');

/** True when the address is one the public internet routes to. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NON_PUBLIC_V4.check(address, 'ipv4');
  if (family === 6) return !NON_PUBLIC_V6.check(address.replace(/%.*$/, ''), 'ipv6');
  return false;
}

function refused(message: string, hint = 'Give a public https:// address of the file, or upload it with platform_begin_media_library_upload.'): StewardError {
  return new StewardError('validation_failed', message, { hint, issues: [{ path: 'sourceUrl', message }] });
}

/** The URL as one the fetch may try, or a refusal saying why not. */
export function vetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('sourceUrl is not a URL');
  }
  if (url.protocol !== 'https:') throw refused('sourceUrl must use https://');
  if (url.username || url.password) throw refused('sourceUrl must not carry a user name or password');
  if (url.port && url.port !== '443') throw refused('sourceUrl must use the standard HTTPS port (443)');
  return url;
}

/** The address to connect to: every address the host has must be public, and the first is used. */
export async function vetHost(hostname: string): Promise<string> {
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  let addresses: string[];
  if (isIP(literal)) addresses = [literal];
  else {
    try {
      addresses = await network.resolve(literal);
    } catch {
      throw refused(`The host ${literal} could not be found`);
    }
  }
  if (addresses.length === 0) throw refused(`The host ${literal} could not be found`);
  // One private answer among public ones is refused too: which one a client picks is not ours to predict.
  if (!addresses.every(isPublicAddress)) throw refused(`sourceUrl leads to a private or reserved network address (${literal}); only public internet addresses are fetched`);
  return addresses[0]!;
}

interface Hop {
  status: number;
  location?: string;
  body?: Buffer;
  contentType?: string;
}

function requestOnce(url: URL, address: string, maxBytes: number, deadline: number): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const servername = url.hostname.startsWith('[') ? '' : url.hostname;
    // An agent of its own whose only connection is to the vetted address: nothing resolves the name again.
    const agent = new https.Agent({ keepAlive: false, maxSockets: 1 });
    agent.createConnection = () => network.connect({ address, port: 443, servername }) as never;
    const request = https.request(url, {
      method: 'GET',
      agent,
      headers: { accept: 'image/*, application/pdf;q=0.9', 'user-agent': 'Steward-Media-Library/1.0' },
      timeout: Math.max(1, deadline - Date.now()),
    });
    request.on('close', () => agent.destroy());
    request.on('timeout', () => request.destroy(refused('sourceUrl took too long to answer')));
    request.on('error', (error) => reject(error instanceof StewardError ? error : refused(`sourceUrl could not be fetched (${(error as NodeJS.ErrnoException).code ?? 'connection failed'})`)));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        response.resume();
        resolve({ status, location: response.headers.location });
        return;
      }
      if (status !== 200) {
        response.resume();
        reject(refused(`sourceUrl answered HTTP ${status}`));
        return;
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        response.destroy();
        reject(new StewardError('payload_too_large', `The file at sourceUrl is larger than the library takes (${sizeInWords(maxBytes)})`));
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) {
          response.destroy();
          reject(new StewardError('payload_too_large', `The file at sourceUrl is larger than the library takes (${sizeInWords(maxBytes)})`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve({ status, body: Buffer.concat(chunks), contentType: response.headers['content-type'] }));
      response.on('error', () => reject(refused('sourceUrl stopped sending part way')));
    });
    request.end();
  });
}

/** The file at a public HTTPS URL, at most `maxBytes`, with the name its last URL gives it. */
export async function fetchPublicSource(raw: string, maxBytes: number): Promise<{ bytes: Buffer; fileName: string; finalUrl: string }> {
  const deadline = Date.now() + TIMEOUT_MS;
  let url = vetUrl(raw);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const address = await vetHost(url.hostname);
    const answer = await requestOnce(url, address, maxBytes, deadline);
    if (answer.body) return { bytes: answer.body, fileName: fileNameOf(url), finalUrl: url.toString() };
    if (!answer.location) throw refused(`sourceUrl redirected (HTTP ${answer.status}) without saying where`);
    // Every hop is vetted again: a public page may redirect to an internal one.
    url = vetUrl(new URL(answer.location, url).toString());
  }
  throw refused(`sourceUrl redirected more than ${MAX_REDIRECTS} times`);
}

function fileNameOf(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).pop() ?? '';
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A malformed escape: keep the segment as it was written.
  }
  const last = decoded.replace(/[^\w.\- ]+/g, '').trim();
  return last.slice(-200) || 'download';
}
