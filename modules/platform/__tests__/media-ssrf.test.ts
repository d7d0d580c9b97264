import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { makeImage } from '../../../test/helpers/media';
import { fetchPublicSource, isPublicAddress, systemNetwork, useSourceNetwork, type SourceNetwork } from '../media/fetch-source';

/**
 * platform_upload_media_library_file's sourceUrl must never reach inside the network Steward runs
 * in. Literal private addresses and names resolving to loopback go through the real resolver. For
 * redirects the test needs a "public" server it controls: it swaps in a network where two made-up
 * public names resolve to documentation-free public addresses and connections to exactly those
 * addresses reach a local server; the vetting of every hop is the production code, unchanged, and
 * any connection attempt to another address fails the test.
 */
describe('media library: fetching a sourceUrl cannot reach private networks', () => {
  let harness: Harness;
  let org: TestOrg;
  let dir: string;
  let server: http.Server;
  let serverPort: number;
  const saved = { ...process.env };
  const secretHits: string[] = [];
  const connects: string[] = [];
  let png: Buffer;

  const PUBLIC_NAMES: Record<string, string[]> = {
    'cdn.public.example': ['93.184.216.34'],
    'mirror.public.example': ['2606:2800:220:1:248:1893:25c8:1946'],
    'internal.public.example': ['10.0.0.7'],
    'mixed.public.example': ['93.184.216.34', '127.0.0.1'],
    'mapped.public.example': ['::ffff:127.0.0.1'],
  };
  const routed = new Set(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);

  const testNetwork: SourceNetwork = {
    async resolve(hostname) {
      const answer = PUBLIC_NAMES[hostname];
      if (!answer) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return answer;
    },
    connect({ address }) {
      connects.push(address);
      if (!routed.has(address)) throw new Error(`the test network refuses to connect to ${address}`);
      return net.connect(serverPort, '127.0.0.1');
    },
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-media-ssrf-'));
    process.env.MEDIA_STORAGE = 'local';
    process.env.MEDIA_LOCAL_DIR = dir;
    png = await makeImage('png', 120, 60);
    server = http.createServer((req, res) => {
      const redirect = (location: string) => { res.writeHead(302, { location }); res.end(); };
      switch (req.url) {
        case '/logo.png': res.writeHead(200, { 'content-type': 'image/png' }); res.end(png); return;
        case '/to-loopback': return redirect('https://127.0.0.1/secret');
        case '/to-localhost': return redirect('https://localhost/secret');
        case '/to-metadata': return redirect('https://169.254.169.254/latest/meta-data/');
        case '/to-private-name': return redirect('https://internal.public.example/secret');
        case '/to-mapped': return redirect('https://[::ffff:7f00:1]/secret');
        case '/to-http': return redirect('http://cdn.public.example/logo.png');
        case '/to-public': return redirect('https://mirror.public.example/logo.png');
        case '/loop': return redirect('/loop');
        case '/huge': res.writeHead(200, { 'content-length': String(30 * 1024 * 1024) }); res.end(); return;
        case '/endless': {
          res.writeHead(200, { 'content-type': 'image/png' });
          const chunk = Buffer.alloc(1024 * 1024, 1);
          const pump = () => { while (res.write(chunk)) { if (res.writableLength > 40 * 1024 * 1024) break; } };
          res.on('drain', pump);
          pump();
          return;
        }
        default: secretHits.push(req.url ?? ''); res.writeHead(200); res.end('internal secret'); return;
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverPort = (server.address() as AddressInfo).port;
    // Its own stack: media storage and the public URL are set in this suite's environment.
    harness = await Harness.start({ own: true });
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'Fetch Chapel' });
  });

  afterAll(async () => {
    useSourceNetwork(null);
    await harness?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    process.env = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  afterEach(() => useSourceNetwork(null));

  const upload = (sourceUrl: string) => harness.invoke(org.apiKey, 'platform_upload_media_library_file', { sourceUrl });

  it.each([
    ['loopback', 'https://127.0.0.1/secret.png'],
    ['loopback, other /8 address', 'https://127.8.9.10/x.png'],
    ['private 10/8', 'https://10.1.2.3/x.png'],
    ['private 192.168/16', 'https://192.168.1.1/x.png'],
    ['private 172.16/12', 'https://172.20.0.1/x.png'],
    ['cloud metadata (link-local)', 'https://169.254.169.254/latest/meta-data/'],
    ['shared address space (CGNAT)', 'https://100.64.0.1/x.png'],
    ['unspecified', 'https://0.0.0.0/x.png'],
    ['decimal loopback', 'https://2130706433/x.png'],
    ['hex loopback', 'https://0x7f.0.0.1/x.png'],
    ['IPv6 loopback', 'https://[::1]/x.png'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/x.png'],
    ['IPv6 unique local', 'https://[fd00::1]/x.png'],
    ['IPv6 link-local', 'https://[fe80::1]/x.png'],
    ['a DNS name resolving to loopback', 'https://localhost/x.png'],
    ['plain http', 'http://example.org/x.png'],
    ['another port', 'https://example.org:8443/x.png'],
    ['credentials in the URL', 'https://user:pw@example.org/x.png'],
    ['not a URL', 'not a url'],
  ])('refuses %s', async (_label, sourceUrl) => {
    const answer = await upload(sourceUrl);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'sourceUrl' }] });
  });

  it('classifies addresses: public ones pass, every private, reserved and embedded-IPv4 form does not', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4009:80b::200e']) expect([address, isPublicAddress(address)]).toEqual([address, true]);
    for (const address of ['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.127.255.255', '0.0.0.0', '224.0.0.1',
      '255.255.255.255', '198.18.0.1', '::1', '::', '::ffff:10.0.0.1', '::ffff:8.8.8.8', '64:ff9b::a00:1', '2002:7f00:1::', 'fc00::1', 'fe80::1%eth0', 'ff02::1', 'not-an-ip']) {
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
    }
  });

  it('fetches a file from a public name, connecting only to the vetted address', async () => {
    useSourceNetwork(testNetwork);
    connects.length = 0;
    const answer = await upload('https://cdn.public.example/logo.png');
    expect(answer.body.ok).toBe(true);
    expect(answer.body.result.file).toMatchObject({ name: 'logo.png', source: 'url', mimeType: 'image/png', width: 120, height: 60 });
    expect(connects).toEqual(['93.184.216.34']);
    // A redirect to another public name is followed, and vetted again.
    connects.length = 0;
    const redirected = await upload('https://cdn.public.example/to-public');
    expect(redirected.body.ok).toBe(true);
    expect(connects).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  it.each([
    ['a redirect to a loopback address', '/to-loopback'],
    ['a redirect to a name resolving to loopback', '/to-localhost'],
    ['a redirect to the cloud metadata address', '/to-metadata'],
    ['a redirect to a name resolving to a private address', '/to-private-name'],
    ['a redirect to an IPv4-mapped loopback', '/to-mapped'],
    ['a redirect down to plain http', '/to-http'],
  ])('refuses %s, and never connects there', async (_label, route) => {
    useSourceNetwork(testNetwork);
    connects.length = 0;
    const answer = await upload(`https://cdn.public.example${route}`);
    expect(answer.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'sourceUrl' }] });
    expect(connects).toEqual(['93.184.216.34']);
    expect(secretHits).toEqual([]);
  });

  it('refuses a name with any private address among its answers, and a name answering with an IPv4-mapped loopback', async () => {
    useSourceNetwork(testNetwork);
    connects.length = 0;
    for (const host of ['mixed.public.example', 'mapped.public.example', 'internal.public.example']) {
      expect((await upload(`https://${host}/logo.png`)).body.error).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/private or reserved/) });
    }
    expect(connects).toEqual([]);
  });

  it('stops after a few redirects and caps the download size', async () => {
    useSourceNetwork(testNetwork);
    expect((await upload('https://cdn.public.example/loop')).body.error).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/redirected more than 3 times/) });
    expect((await upload('https://cdn.public.example/huge')).body.error).toMatchObject({ code: 'payload_too_large' });
    expect((await upload('https://cdn.public.example/endless')).body.error).toMatchObject({ code: 'payload_too_large' });
    const { rows } = await harness.pool.query("SELECT count(*)::int AS n FROM media_files WHERE org_id = $1 AND source = 'url'", [org.orgId]);
    expect(rows[0].n).toBe(2);
  });
});

/**
 * Over real TLS: the production connection checks the server's certificate against the URL's host
 * name (SNI and verification use the name, while the socket goes to the vetted address), and a
 * certificate for another name is refused even when its issuer is trusted.
 */
describe('media library: sourceUrl fetches verify TLS against the URL\'s name', () => {
  let tlsDir: string;
  let server: https.Server;
  let port: number;
  let cert: Buffer;
  let png: Buffer;

  beforeAll(async () => {
    tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-media-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=cdn.public.example',
      '-addext', 'subjectAltName=DNS:cdn.public.example', '-keyout', path.join(tlsDir, 'key.pem'), '-out', path.join(tlsDir, 'cert.pem')], { stdio: 'ignore' });
    cert = fs.readFileSync(path.join(tlsDir, 'cert.pem'));
    png = await makeImage('png', 10, 10);
    server = https.createServer({ key: fs.readFileSync(path.join(tlsDir, 'key.pem')), cert }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(png);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    useSourceNetwork(null);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(tlsDir, { recursive: true, force: true });
  });

  afterEach(() => useSourceNetwork(null));

  /** Production's TLS connection, except that the test's own certificate is trusted. */
  const trustingNetwork = (names: Record<string, string>): SourceNetwork => ({
    resolve: async (hostname) => (names[hostname] ? [names[hostname]!] : []),
    connect: ({ servername }) => tls.connect({ host: '127.0.0.1', port, servername, ca: cert }),
  });

  it('refuses a certificate nobody trusts: the production connection verifies it', async () => {
    // The production connect itself, pointed at the test server's address and port instead of the vetted address's 443.
    useSourceNetwork({ resolve: async () => ['93.184.216.34'], connect: ({ servername }) => systemNetwork.connect({ address: '127.0.0.1', port, servername }) });
    await expect(fetchPublicSource('https://cdn.public.example/logo.png', 1_000_000)).rejects.toMatchObject({ code: 'validation_failed', message: 'sourceUrl could not be fetched (DEPTH_ZERO_SELF_SIGNED_CERT)' });
  });

  it('fetches over TLS when the certificate matches the URL\'s name, and refuses one issued for another name', async () => {
    useSourceNetwork(trustingNetwork({ 'cdn.public.example': '93.184.216.34', 'other.public.example': '93.184.216.35' }));
    const fetched = await fetchPublicSource('https://cdn.public.example/logo.png', 1_000_000);
    expect(fetched.bytes.equals(png)).toBe(true);
    await expect(fetchPublicSource('https://other.public.example/logo.png', 1_000_000)).rejects
      .toMatchObject({ code: 'validation_failed', message: 'sourceUrl could not be fetched (ERR_TLS_CERT_ALTNAME_INVALID)' });
  });
});
