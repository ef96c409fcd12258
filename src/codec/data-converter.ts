import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { AesGcmCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from './aes-gcm-codec.js';
import { codecKeysFrom } from './codec-keys.js';

const words = new TextDecoder();

/**
 * A process without codec keys met a payload the loop's codec sealed. Without this the SDK says only
 * "Unknown encoding: binary/encrypted" (issue 48): every command, and every job a lane took.
 */
class MissingCodecKeyError extends Error {
  override readonly name = 'MissingCodecKeyError';
}

/**
 * The codec of a process without keys: payloads pass as they are, and a sealed one is refused
 * naming what it is and which variable gives the key.
 */
export class NoKeyCodec implements PayloadCodec {
  /** `onSealed`: what to throw instead, told what was found (a lane stops taking jobs: worker-command.ts). */
  constructor(private readonly onSealed?: (message: string) => Error) {}

  encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.resolve(payloads);
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return new Promise((resolve) => {
      for (const payload of payloads) {
        const encoding = payload.metadata?.encoding;
        if (encoding instanceof Uint8Array && words.decode(encoding) === ENCRYPTED_ENCODING) {
          const keyId = payload.metadata?.[KEY_ID_METADATA];
          const message =
            `this loop's payloads are encrypted${keyId ? ` (key '${words.decode(keyId)}')` : ''} and this process has no codec key: ` +
            'set CHAMPION_LOOP_CODEC_KEYS or CHAMPION_LOOP_CODEC_KEY_FILE to the keys its workers use ' +
            '(docs/operating.md, "Encrypting payloads")';
          throw this.onSealed?.(message) ?? new MissingCodecKeyError(message);
        }
      }
      resolve(payloads);
    });
  }
}

/**
 * The data converter every client and worker of the loop uses: the default one, with the AES-GCM
 * payload codec when the environment sets keys (docs/operating.md, "Encrypting payloads"), else
 * one that only says so when it meets a sealed payload.
 */
export function loopDataConverter(
  env: NodeJS.ProcessEnv = process.env,
  onSealed?: (message: string) => Error,
): DataConverter {
  const keys = codecKeysFrom(env);
  return { payloadCodecs: [keys === null ? new NoKeyCodec(onSealed) : new AesGcmCodec(keys)] };
}
