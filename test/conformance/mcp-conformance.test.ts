import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Harness, type TestOrg } from '../helpers/harness';

/**
 * The official MCP conformance suite against a started Steward, in its server
 * mode. The suite cannot send an Authorization header, so a local proxy adds
 * the bearer key. It needs Node 22: the `node` package in this directory's own
 * package.json provides one without replacing the Node that runs the project.
 * Scenarios for features Steward does not offer are listed, with reasons, in
 * expected-failures.yml; the suite fails the run on any other failure and on
 * a listed scenario that passes.
 */
const HERE = __dirname;
const NODE22 = join(HERE, 'node_modules', '.bin', 'node');
const SUITE = join(HERE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** `npm run setup` installs the suite (this directory's lock file pins its version); the test never installs it. */
function ensureSuite(): void {
  const missing = [NODE22, SUITE].filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(`The MCP conformance suite is not installed (missing ${missing.join(', ')}): run \`npm run setup\`, which installs it into test/conformance/node_modules`);
  }
}

/** Forwards every request to `target`, adding the bearer key; everything else passes through as sent. */
function bearerProxy(target: string, apiKey: string): Promise<{ server: Server; url: string }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const forwarded = request({
      hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method,
      headers: { ...req.headers, authorization: `Bearer ${apiKey}` },
    }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => {
      res.writeHead(502).end();
    });
    req.pipe(forwarded);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
    });
  });
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance suite', () => {
  let harness: Harness;
  let org: TestOrg;
  let proxy: { server: Server; url: string };
  let workDir: string;

  beforeAll(async () => {
    ensureSuite();
    harness = await Harness.start();
    org = await harness.createOrg();
    proxy = await bearerProxy(harness.url, org.apiKey);
    // The suite writes its results/ folder into its working directory.
    workDir = mkdtempSync(join(tmpdir(), 'steward-conformance-'));
  });

  afterAll(async () => {
    proxy?.server.closeAllConnections();
    await new Promise<void>((resolve) => (proxy ? proxy.server.close(() => resolve()) : resolve()));
    await harness?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('passes every server scenario except the expected failures', async () => {
    const { code, output } = await run(NODE22, [SUITE, 'server', '--url', `${proxy.url}/api/mcp`, '--expected-failures', join(HERE, 'expected-failures.yml')], workDir);
    if (code !== 0) console.log(output);
    expect(code).toBe(0);
  }, 300_000);
});
