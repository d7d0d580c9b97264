import type { Payload } from '@temporalio/common';
import { StewardError } from '../../core/errors';

/**
 * The codec-server wire format: Temporal's Payloads message as proto3 JSON,
 * `{"payloads": [{"metadata": {"<key>": "<base64>"}, "data": "<base64>"}]}`.
 * Bytes fields are base64 (standard or URL-safe alphabet, padding optional).
 */

export const MAX_PAYLOADS = 1000;
const MAX_METADATA_KEYS = 32;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export interface WirePayload {
  metadata?: Record<string, string>;
  data?: string;
}

function invalid(message: string): StewardError {
  return new StewardError('invalid_request', message);
}

function bytesOf(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64.test(value)) throw invalid(`${where} must be a base64 string`);
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function payloadOf(value: unknown, index: number): Payload {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(`payloads[${index}] must be an object`);
  const { metadata, data } = value as { metadata?: unknown; data?: unknown };
  const payload: Payload = {};
  if (metadata !== undefined && metadata !== null) {
    if (typeof metadata !== 'object' || Array.isArray(metadata)) throw invalid(`payloads[${index}].metadata must be an object`);
    const entries = Object.entries(metadata as Record<string, unknown>);
    if (entries.length > MAX_METADATA_KEYS) throw invalid(`payloads[${index}].metadata has too many keys`);
    payload.metadata = Object.fromEntries(entries.map(([key, inner]) => [key, bytesOf(inner, `payloads[${index}].metadata.${key}`)]));
  }
  if (data !== undefined && data !== null) payload.data = bytesOf(data, `payloads[${index}].data`);
  return payload;
}

/** The request body's payloads, or a clear invalid_request naming what is wrong. */
export function payloadsFromBody(body: unknown): Payload[] {
  const list = body && typeof body === 'object' ? (body as { payloads?: unknown }).payloads : undefined;
  if (!Array.isArray(list)) throw invalid('The body must be {"payloads": [...]}, as Temporal codec clients send it');
  if (list.length > MAX_PAYLOADS) throw invalid(`At most ${MAX_PAYLOADS} payloads per request`);
  return list.map(payloadOf);
}

export function payloadsToBody(payloads: Payload[]): { payloads: WirePayload[] } {
  return {
    payloads: payloads.map((payload) => {
      const out: WirePayload = {};
      if (payload.metadata) {
        out.metadata = Object.fromEntries(Object.entries(payload.metadata).map(([key, bytes]) => [key, Buffer.from(bytes ?? []).toString('base64')]));
      }
      if (payload.data) out.data = Buffer.from(payload.data).toString('base64');
      return out;
    }),
  };
}
