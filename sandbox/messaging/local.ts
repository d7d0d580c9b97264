import { sandboxConfigFromEnv, startMessagingSandbox, type MessagingSandbox } from './server';

/**
 * `npm start`'s local messaging provider: unless SMS_API_URL or WHATSAPP_API_URL name a real
 * provider (or MESSAGING_SANDBOX=off), the sandbox starts on MESSAGING_SANDBOX_PORT (default: a
 * free port) and this process's environment points SMS and WhatsApp at it, so a new user can send
 * and watch delivery without accounts. Credentials are random per start unless set in the
 * environment (SMS_ACCOUNT_SID, SMS_AUTH_TOKEN, WHATSAPP_ACCESS_TOKEN, WHATSAPP_APP_SECRET, …).
 */
export async function startLocalMessagingSandbox(env: NodeJS.ProcessEnv = process.env): Promise<MessagingSandbox | null> {
  if (env.MESSAGING_SANDBOX === 'off' || env.SMS_API_URL || env.WHATSAPP_API_URL) return null;
  const sandbox = await startMessagingSandbox(sandboxConfigFromEnv(env));
  for (const [key, value] of Object.entries(sandbox.env())) env[key] ??= value;
  return sandbox;
}
