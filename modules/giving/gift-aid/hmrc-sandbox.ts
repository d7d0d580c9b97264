import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClaimSubmission } from './hmrc-provider';
import { normalisePostcode } from './rules';

/**
 * A local stand-in for the Gift Aid gateway (the request shape is documented in hmrc-provider.ts).
 * Like HMRC it refuses a whole claim for one bad donation line, and it de-duplicates on the
 * Idempotency-Key header, so a repeated submission returns the first reference. Tests start it;
 * `npm run sandbox:hmrc` runs it for a local stack (HMRC_GIFT_AID_URL=http://127.0.0.1:4010).
 */
export interface HmrcSandbox {
  url: string;
  /** Claims received, one per idempotency key, with the reference given. */
  claims: Array<{ reference: string; claim: ClaimSubmission }>;
  /** Every POST, including repeats. */
  readonly requests: number;
  close(): Promise<void>;
}

function lineProblems(claim: ClaimSubmission): Array<{ index: number; message: string }> {
  const problems: Array<{ index: number; message: string }> = [];
  claim.donations.forEach((line, index) => {
    if (!line.firstName?.trim() || !line.lastName?.trim()) problems.push({ index, message: 'donor name missing' });
    if (!line.houseNameOrNumber?.trim()) problems.push({ index, message: 'house name or number missing' });
    if (normalisePostcode(line.postcode) !== line.postcode) problems.push({ index, message: 'postcode not in HMRC format' });
    if (!Number.isSafeInteger(line.amount) || line.amount <= 0) problems.push({ index, message: 'amount must be whole positive pence' });
    if (!/^\d{4}-\d{2}-\d{2}$/.test(line.date ?? '')) problems.push({ index, message: 'date must be YYYY-MM-DD' });
  });
  return problems;
}

function refusal(claim: Partial<ClaimSubmission>): { error: string; lines?: Array<{ index: number; message: string }> } | null {
  if (typeof claim.claimId !== 'string' || !/^[A-Z]{1,2}\d{1,6}$/.test(claim.charityReference ?? '')) return { error: 'claimId and charityReference are required' };
  if (claim.currency !== 'GBP' || !Array.isArray(claim.donations) || !Array.isArray(claim.adjustments) || !Array.isArray(claim.smallDonations)) {
    return { error: 'currency GBP, donations, adjustments and smallDonations are required' };
  }
  const lines = lineProblems(claim as ClaimSubmission);
  if (lines.length > 0) return { error: 'The claim has invalid donation lines; nothing was accepted', lines };
  const gross = claim.donations.reduce((sum, l) => sum + l.amount, 0) + claim.adjustments.reduce((sum, l) => sum + l.amount, 0);
  if (claim.totals?.gross !== gross) return { error: `totals.gross ${claim.totals?.gross} is not the sum of the lines (${gross})` };
  return null;
}

export async function startHmrcSandbox(options: { port?: number; host?: string } = {}): Promise<HmrcSandbox> {
  const claims: HmrcSandbox['claims'] = [];
  const byKey = new Map<string, string>();
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const answer = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const found = req.method === 'GET' && /^\/claims\/([A-Z0-9-]+)$/.exec(req.url ?? '');
      if (found) {
        const claim = claims.find((c) => c.reference === found[1]);
        answer(claim ? 200 : 404, claim ? { reference: claim.reference, status: 'received' } : { error: 'unknown reference' });
        return;
      }
      if (req.method !== 'POST' || req.url !== '/claims') {
        answer(404, { error: 'not found' });
        return;
      }
      state.requests += 1;
      const key = String(req.headers['idempotency-key'] ?? '');
      if (!key) {
        answer(400, { error: 'Idempotency-Key required' });
        return;
      }
      const known = byKey.get(key);
      if (known) {
        answer(202, { reference: known, status: 'received' });
        return;
      }
      let claim: ClaimSubmission;
      try {
        claim = JSON.parse(body) as ClaimSubmission;
      } catch {
        answer(400, { error: 'body must be JSON' });
        return;
      }
      const refused = refusal(claim);
      if (refused) {
        answer(422, refused);
        return;
      }
      const reference = `SANDBOX-${randomBytes(5).toString('hex').toUpperCase()}`;
      byKey.set(key, reference);
      claims.push({ reference, claim });
      answer(202, { reference, status: 'received' });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    claims,
    get requests() {
      return state.requests;
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

if (require.main === module) {
  void startHmrcSandbox({ port: Number(process.env.HMRC_SANDBOX_PORT ?? 4010) }).then((sandbox) => {
    console.log(`Gift Aid sandbox listening on ${sandbox.url} (set HMRC_GIFT_AID_URL=${sandbox.url})`);
  });
}
