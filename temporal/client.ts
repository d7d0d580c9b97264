import { Client, type ConnectionLike } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './payload-codec';
import { resolvePayloadKey } from './payload-key';

let codec: EncryptionCodec | undefined;

/** One codec per process, from the deployment's payload key. */
export function payloadCodec(): EncryptionCodec {
  codec ??= new EncryptionCodec(resolvePayloadKey());
  return codec;
}

/** Every Temporal client and worker of Steward must use this, or they cannot read each other's payloads. */
export function stewardDataConverter(): DataConverter {
  return { payloadCodecs: [payloadCodec()] };
}

export function createTemporalClient(connection: ConnectionLike, namespace: string): Client {
  return new Client({ connection, namespace, dataConverter: stewardDataConverter() });
}
