import { StripeCheckoutProvider } from '../../kernel/payments';
import { paymentsSandboxConfigFromEnv, startPaymentsSandbox, type PaymentsSandbox } from '../../sandbox/payments/server';

/**
 * The local payments sandbox for one suite, with Steward's Stripe adapter pointed at it over real
 * HTTP: started before the suite's tests and closed after them. Read its fields inside the tests.
 */
export function useSandboxProvider(): { readonly sandbox: PaymentsSandbox; readonly provider: StripeCheckoutProvider } {
  const state = {} as { sandbox: PaymentsSandbox; provider: StripeCheckoutProvider };
  beforeAll(async () => {
    state.sandbox = await startPaymentsSandbox(paymentsSandboxConfigFromEnv({}));
    const env = state.sandbox.env();
    state.provider = new StripeCheckoutProvider({ apiUrl: env.PAYMENTS_API_URL!, secretKey: env.PAYMENTS_SECRET_KEY! });
  });
  afterAll(async () => {
    await state.sandbox?.close();
  });
  return state;
}
