import fs from 'node:fs';
import path from 'node:path';
import { DATA_DIR } from '../../db/config';
import { sandboxConfigFromEnv, startMessagingSandbox } from './server';

/**
 * `npm run sandbox`: the messaging sandbox on its own, for Steward run as separate processes
 * (`npm run api`, `npm run worker`), where nothing starts it for you. It listens on
 * MESSAGING_SANDBOX_PORT (default 4010), posts delivery webhooks to CHANNELS_WEBHOOK_BASE_URL
 * (else PUBLIC_URL, else http://127.0.0.1:3000), and writes the settings a worker needs to send
 * through it to MESSAGING_SANDBOX_ENV_FILE (default .data/messaging-sandbox.env, readable by its
 * owner only: the credentials are the sandbox's, random per start unless set). Load that file into
 * the worker's environment (`set -a; . .data/messaging-sandbox.env; set +a; npm run worker`) and the API's
 * (it verifies the webhooks). SIGINT or SIGTERM stops it.
 */
async function main() {
  const config = sandboxConfigFromEnv();
  const sandbox = await startMessagingSandbox({ ...config, port: Number(process.env.MESSAGING_SANDBOX_PORT ?? 4010), host: process.env.MESSAGING_SANDBOX_HOST ?? '127.0.0.1' });
  const webhookBase = process.env.CHANNELS_WEBHOOK_BASE_URL ?? process.env.PUBLIC_URL ?? 'http://127.0.0.1:3000';
  sandbox.setWebhookBaseUrl(webhookBase);
  const envFile = process.env.MESSAGING_SANDBOX_ENV_FILE ?? path.join(DATA_DIR, 'messaging-sandbox.env');
  fs.mkdirSync(path.dirname(envFile), { recursive: true });
  fs.writeFileSync(envFile, `${Object.entries(sandbox.env()).map(([key, value]) => `${key}=${value}`).join('\n')}\n`, { mode: 0o600 });
  fs.chmodSync(envFile, 0o600);
  console.log(`messaging sandbox ${sandbox.url} (messages: ${sandbox.url}/sandbox/messages), webhooks to ${webhookBase}
worker and API settings written to ${envFile}`);
  const stop = () => {
    sandbox.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
