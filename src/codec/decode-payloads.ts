import type { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { ENCRYPTED_ENCODING } from './aes-gcm-codec.js';

// History, describe and heartbeat payloads come from the server as written: sealed when the loop
// runs with a codec. Whatever reads them outside the SDK's own decoding opens them here first.

const words = new TextDecoder();

const isSealed = (value: unknown): value is Payload => {
  const encoding = (value as Payload | null)?.metadata?.encoding;
  return encoding instanceof Uint8Array && words.decode(encoding) === ENCRYPTED_ENCODING;
};

async function open(value: unknown, codecs: readonly PayloadCodec[]): Promise<unknown> {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  if (isSealed(value)) {
    let payloads = [value];
    for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
    return payloads[0];
  }
  if (Array.isArray(value)) return Promise.all(value.map((item) => open(item, codecs)));
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const opened = await open(object[key], codecs);
    if (opened !== object[key]) object[key] = opened;
  }
  return value;
}

/**
 * Opens, in place, every sealed payload anywhere in `value` (history events, a describe's pending
 * activities) with the client's codecs; returns it. A client without codecs leaves it as it is.
 */
export async function openPayloads<T>(client: Client, value: T): Promise<T> {
  const codecs = client.options.loadedDataConverter.payloadCodecs;
  if (codecs.length === 0) return value;
  return (await open(value, codecs)) as T;
}
