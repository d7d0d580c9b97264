import type { RetentionRule } from '../module';

/** Cached postcode answers: a lookup is cheap to repeat, and an address is personal data. */
export const POSTCODE_CACHE_RETENTION = '30 days';

export const peopleRetention: readonly RetentionRule[] = [
  {
    name: 'postcodeCache',
    purge: async (db) => (await db.query(`DELETE FROM postcode_cache WHERE fetched_at < now() - interval '${POSTCODE_CACHE_RETENTION}'`)).rowCount ?? 0,
  },
];
