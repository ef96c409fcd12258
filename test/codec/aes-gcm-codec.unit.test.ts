import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { AesGcmCodec, PayloadDecryptError } from '../../src/codec/aes-gcm-codec.js';
import type { CodecKeys } from '../../src/codec/codec-keys.js';

const keysOf = (...ids: string[]): CodecKeys => {
  const keys = ids.map((id) => ({ id, key: randomBytes(32) }));
  return { keys, current: keys.at(-1) as CodecKeys['current'] };
};
const payload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const plainText = (payloads: readonly Payload[]): string =>
  payloads.map((p) => Buffer.from(p.data ?? []).toString('latin1') + JSON.stringify(p.metadata)).join('');

describe('the AES-GCM payload codec', () => {
  it('seals a payload whole and opens it to the same payload', async () => {
    const codec = new AesGcmCodec(keysOf('k1'));
    const original = payload({ candidate: 'wide-secret-candidate', f2p: 7 });
    const [sealed] = await codec.encode([original]);
    expect(plainText([sealed as Payload])).not.toContain('wide-secret-candidate');
    expect(plainText([sealed as Payload])).not.toContain('json/plain');
    expect(Buffer.from(sealed?.metadata?.['encryption-key-id'] ?? []).toString()).toBe('k1');
    const [opened] = await codec.decode([sealed as Payload]);
    expect(defaultPayloadConverter.fromPayload(opened as Payload)).toEqual({
      candidate: 'wide-secret-candidate',
      f2p: 7,
    });
  });

  it('uses a fresh nonce: the same payload twice seals differently', async () => {
    const codec = new AesGcmCodec(keysOf('k1'));
    const [a, b] = await codec.encode([payload('same'), payload('same')]);
    expect(Buffer.from(a?.data ?? []).equals(Buffer.from(b?.data ?? []))).toBe(false);
  });

  it('still opens what an old key sealed once a new key is added after it', async () => {
    const before = keysOf('2026-11');
    const [sealed] = await new AesGcmCodec(before).encode([payload('written in November')]);
    const rotated: CodecKeys = {
      keys: [...before.keys, { id: '2026-12', key: randomBytes(32) }],
      current: { id: '2026-12', key: randomBytes(32) },
    };
    const codec = new AesGcmCodec(rotated);
    const [opened] = await codec.decode([sealed as Payload]);
    expect(defaultPayloadConverter.fromPayload(opened as Payload)).toBe('written in November');
    const [resealed] = await codec.encode([payload('written in December')]);
    expect(Buffer.from(resealed?.metadata?.['encryption-key-id'] ?? []).toString()).toBe('2026-12');
  });

  it('passes plain payloads through, so history from before the key still reads', async () => {
    const plain = payload({ generation: 1 });
    expect(await new AesGcmCodec(keysOf('k1')).decode([plain])).toEqual([plain]);
  });

  it('refuses, naming the key, a payload of a key it lacks or one that does not authenticate', async () => {
    const [sealed] = await new AesGcmCodec(keysOf('k1')).encode([payload('x')]);
    await expect(new AesGcmCodec(keysOf('k2')).decode([sealed as Payload])).rejects.toThrow(
      /encrypted with key 'k1', which this process does not have \(it has k2\)/,
    );
    // Same id, other bytes: a wrong key, not a missing one.
    await expect(new AesGcmCodec(keysOf('k1')).decode([sealed as Payload])).rejects.toThrow(PayloadDecryptError);
    const tampered = Buffer.from(sealed?.data ?? []);
    tampered[20] = (tampered[20] as number) ^ 1;
    await expect(new AesGcmCodec(keysOf('k1')).decode([{ ...sealed, data: tampered }])).rejects.toThrow(
      /does not open with this process's key 'k1'/,
    );
  });
});
