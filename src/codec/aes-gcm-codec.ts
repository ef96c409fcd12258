import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { CodecKey, CodecKeys } from './codec-keys.js';

// Every payload sealed whole (metadata and data) with AES-256-GCM: a fresh 12-byte nonce per
// payload, the key's id in the sealed payload's metadata so a rotated key still opens old history.

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const text = new TextEncoder();
const words = new TextDecoder();

/** A payload the codec cannot open: its key is not among this process's keys, or it does not authenticate. */
export class PayloadDecryptError extends Error {
  override readonly name = 'PayloadDecryptError';
}

export class AesGcmCodec implements PayloadCodec {
  private readonly byId: ReadonlyMap<string, CodecKey>;

  constructor(private readonly keys: CodecKeys) {
    this.byId = new Map(keys.keys.map((key) => [key.id, key]));
  }

  // A codec answers with a promise: a payload that does not open rejects it rather than throwing.
  encode(payloads: Payload[]): Promise<Payload[]> {
    return new Promise((resolve) => resolve(payloads.map((payload) => this.seal(payload))));
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return new Promise((resolve) => resolve(payloads.map((payload) => this.open(payload))));
  }

  private seal(payload: Payload): Payload {
    const { id, key } = this.keys.current;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    const plain = proto.temporal.api.common.v1.Payload.encode(payload).finish();
    const sealed = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: text.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text.encode(id) },
      data: sealed,
    };
  }

  private open(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    // Plain payloads (history written before a key was set) pass through as they are.
    if (!encoding || words.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    const id = idBytes ? words.decode(idBytes) : '';
    const found = this.byId.get(id);
    if (found === undefined) {
      throw new PayloadDecryptError(
        `a payload is encrypted with key '${id}', which this process does not have (it has ${[...this.byId.keys()].join(', ')}): ` +
          'add that key to CHAMPION_LOOP_CODEC_KEYS or CHAMPION_LOOP_CODEC_KEY_FILE before the new one',
      );
    }
    const sealed = Buffer.from(payload.data ?? new Uint8Array());
    if (sealed.length < NONCE_BYTES + TAG_BYTES) {
      throw new PayloadDecryptError(`a payload encrypted with key '${id}' is too short to be one`);
    }
    const decipher = createDecipheriv('aes-256-gcm', found.key, sealed.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([
        decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new PayloadDecryptError(
        `a payload encrypted with key '${id}' does not open with this process's key '${id}': the key is not the one that wrote it`,
      );
    }
    return proto.temporal.api.common.v1.Payload.decode(plain);
  }
}
