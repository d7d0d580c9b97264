import { paymentsSandboxConfigFromEnv, startPaymentsSandbox, type PaymentsSandbox } from './server';

/**
 * `npm start`'s local payment provider: unless PAYMENTS_API_URL names a real one (or
 * PAYMENTS_SANDBOX=off), the Stripe Checkout-shaped sandbox starts on PAYMENTS_SANDBOX_PORT
 * (default: a free port) and this process's environment points the payment adapter
 * (kernel/payments.ts) at it, so tickets can be sold and refunded without an account. Keys are
 * random per start unless PAYMENTS_SECRET_KEY and PAYMENTS_WEBHOOK_SECRET are set.
 */
export async function startLocalPaymentsSandbox(env: NodeJS.ProcessEnv = process.env): Promise<PaymentsSandbox | null> {
  if (env.PAYMENTS_SANDBOX === 'off' || env.PAYMENTS_API_URL) return null;
  const sandbox = await startPaymentsSandbox(paymentsSandboxConfigFromEnv(env));
  for (const [key, value] of Object.entries(sandbox.env())) env[key] ??= value;
  return sandbox;
}
