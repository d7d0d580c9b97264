import { StewardError } from '../../core/errors';
import { queryOne, type Queryable } from '../../db/pool';

export interface PostcodeAddress {
  postcode: string;
  city: string | null;
  county: string | null;
  country: string | null;
}

/** Anything that can turn a UK postcode into an address; `null` means the postcode does not exist. */
export interface PostcodeProvider {
  lookup(postcode: string): Promise<PostcodeAddress | null>;
}

export class PostcodeProviderUnavailable extends Error {}

const UK_POSTCODE = /^([A-Z]{1,2}[0-9][A-Z0-9]?) ?([0-9][A-Z]{2})$/;

/** "sw1a1aa" → "SW1A 1AA"; undefined when it is not shaped like a UK postcode. */
export function normaliseUkPostcode(raw: string): string | undefined {
  const match = UK_POSTCODE.exec(raw.trim().toUpperCase().replace(/\s+/g, ' '));
  return match ? `${match[1]} ${match[2]}` : undefined;
}

/** Speaks the postcodes.io API: GET {base}/postcodes/{postcode}. */
export class PostcodesIoProvider implements PostcodeProvider {
  constructor(private readonly baseUrl: string, private readonly timeoutMs = 2000) {}

  async lookup(postcode: string): Promise<PostcodeAddress | null> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/\/$/, '')}/postcodes/${encodeURIComponent(postcode)}`, {
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: { accept: 'application/json' },
      });
    } catch (error) {
      throw new PostcodeProviderUnavailable(`postcode service unreachable: ${(error as Error).name}`);
    }
    if (response.status === 404) return null;
    if (!response.ok) throw new PostcodeProviderUnavailable(`postcode service answered ${response.status}`);
    const body = (await response.json()) as { result?: Record<string, string | null> };
    const result = body.result ?? {};
    return {
      postcode: result.postcode ?? postcode,
      city: result.admin_district ?? result.parish ?? null,
      county: result.admin_county ?? result.region ?? null,
      country: result.country ?? null,
    };
  }
}

const CACHE_DAYS = 30;
const memory = new Map<string, { value: PostcodeAddress | null; at: number }>();
const MEMORY_TTL_MS = 60 * 60 * 1000;

/**
 * Looks a postcode up through the cache (memory, then Postgres), asking the
 * provider only on a miss. Found and not-found answers are both cached.
 */
export async function lookupPostcode(db: Queryable, provider: PostcodeProvider, postcode: string): Promise<PostcodeAddress | null> {
  const hit = memory.get(postcode);
  if (hit && Date.now() - hit.at < MEMORY_TTL_MS) return hit.value;
  const stored = await queryOne<{ result: PostcodeAddress | null }>(db,
    `SELECT result FROM postcode_cache WHERE postcode = $1 AND fetched_at > now() - interval '${CACHE_DAYS} days'`, [postcode]);
  if (stored) {
    memory.set(postcode, { value: stored.result, at: Date.now() });
    return stored.result;
  }
  const value = await provider.lookup(postcode);
  await db.query(`INSERT INTO postcode_cache (postcode, result) VALUES ($1, $2)
    ON CONFLICT (postcode) DO UPDATE SET result = EXCLUDED.result, fetched_at = now()`, [postcode, JSON.stringify(value)]);
  memory.set(postcode, { value, at: Date.now() });
  return value;
}

/** Clears the in-process cache (tests point the provider elsewhere between cases). */
export function clearPostcodeMemoryCache(): void {
  memory.clear();
}

export function defaultPostcodeProvider(): PostcodeProvider {
  return new PostcodesIoProvider(process.env.POSTCODES_API_URL ?? 'https://api.postcodes.io', Number(process.env.POSTCODES_TIMEOUT_MS ?? 2000));
}

export function requireUkPostcode(raw: string, path = 'postcode'): string {
  const postcode = normaliseUkPostcode(raw);
  if (!postcode) {
    throw new StewardError('validation_failed', `"${raw}" is not a UK postcode`, {
      issues: [{ path, message: 'expected a UK postcode such as SW1A 1AA' }],
    });
  }
  return postcode;
}

export interface AddressDerivation {
  derived: boolean;
  reason?: 'provider_unavailable' | 'postcode_not_found' | 'not_a_uk_postcode' | 'address_given';
  address?: PostcodeAddress;
}

/**
 * Fills city, county and country from a UK postcode when the caller gave the
 * postcode without them. The provider being down never blocks the save.
 */
export async function deriveAddress(
  db: Queryable, provider: PostcodeProvider,
  fields: { addressPostcode?: unknown; addressCity?: unknown; addressCounty?: unknown; addressCountry?: unknown },
): Promise<AddressDerivation | undefined> {
  if (typeof fields.addressPostcode !== 'string') return undefined;
  if (fields.addressCity || fields.addressCounty || fields.addressCountry) return { derived: false, reason: 'address_given' };
  const postcode = normaliseUkPostcode(fields.addressPostcode);
  if (!postcode) return { derived: false, reason: 'not_a_uk_postcode' };
  try {
    const address = await lookupPostcode(db, provider, postcode);
    return address ? { derived: true, address } : { derived: false, reason: 'postcode_not_found' };
  } catch (error) {
    if (error instanceof PostcodeProviderUnavailable) return { derived: false, reason: 'provider_unavailable' };
    throw error;
  }
}
