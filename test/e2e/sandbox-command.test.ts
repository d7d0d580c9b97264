import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../db/config';

/** `npm run sandbox`: the messaging sandbox as its own process, for Steward run as separate processes. */
describe('npm run sandbox', () => {
  it('serves the sandbox, writes the worker\'s settings for its owner only, and stops on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-sandbox-'));
    const envFile = path.join(dir, 'messaging-sandbox.env');
    const script = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts.sandbox as string;
    expect(script).toBe('tsx sandbox/messaging/main.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'sandbox', 'messaging', 'main.ts')], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, MESSAGING_SANDBOX_PORT: '0', MESSAGING_SANDBOX_ENV_FILE: envFile, SMS_AUTH_TOKEN: 'sandbox-token-for-test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /messaging sandbox (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (match && output.includes('settings written')) resolve(match[1]!);
        });
        child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.once('exit', () => reject(new Error(`sandbox exited: ${output}`)));
      });
      const settings = Object.fromEntries(fs.readFileSync(envFile, 'utf8').trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2)));
      expect(settings).toMatchObject({ SMS_API_URL: url, WHATSAPP_API_URL: url, SMS_AUTH_TOKEN: 'sandbox-token-for-test' });
      expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
      const messages = await fetch(`${url}/sandbox/messages`);
      expect(messages.status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
