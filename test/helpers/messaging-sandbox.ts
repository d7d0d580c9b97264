import { sandboxConfigFromEnv, startMessagingSandbox, type MessagingSandbox } from '../../sandbox/messaging/server';

const SANDBOX_ENV_KEYS = [
  'SMS_API_URL', 'SMS_ACCOUNT_SID', 'SMS_AUTH_TOKEN', 'SMS_FROM', 'WHATSAPP_API_URL', 'WHATSAPP_ACCESS_TOKEN', 'WHATSAPP_APP_SECRET',
  'WHATSAPP_BUSINESS_ACCOUNT_ID', 'WHATSAPP_PHONE_NUMBER_ID', 'EMAIL_EVENTS_SECRET', 'CHANNELS_WEBHOOK_BASE_URL',
] as const;

/**
 * The local messaging provider (sandbox/messaging/server.ts) in the test process, with fresh
 * credentials, and this process's environment pointed at it: the in-process worker sends SMS and
 * WhatsApp to it, and the API (at `stewardUrl`) verifies the webhooks it signs. `close()` puts the
 * environment back.
 */
export async function startTestMessagingSandbox(stewardUrl: string): Promise<MessagingSandbox> {
  const before = Object.fromEntries(SANDBOX_ENV_KEYS.map((key) => [key, process.env[key]]));
  const blank: NodeJS.ProcessEnv = {};
  const sandbox = await startMessagingSandbox({ ...sandboxConfigFromEnv(blank), webhookBaseUrl: stewardUrl });
  Object.assign(process.env, sandbox.env(), { CHANNELS_WEBHOOK_BASE_URL: stewardUrl });
  const close = sandbox.close;
  return Object.assign(sandbox, {
    close: async () => {
      await close();
      for (const key of SANDBOX_ENV_KEYS) {
        if (before[key] === undefined) delete process.env[key];
        else process.env[key] = before[key];
      }
    },
  });
}
