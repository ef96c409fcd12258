import type { DataConverter } from '@temporalio/common';
import { AesGcmCodec } from './aes-gcm-codec.js';
import { codecKeysFrom } from './codec-keys.js';

/**
 * The data converter every client and worker of the loop uses: the default one, with the AES-GCM
 * payload codec when the environment sets keys (docs/operating.md, "Encrypting payloads").
 */
export function loopDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter {
  const keys = codecKeysFrom(env);
  return keys === null ? {} : { payloadCodecs: [new AesGcmCodec(keys)] };
}
