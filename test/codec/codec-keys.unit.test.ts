import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { CodecKeyError, codecKeysFrom } from '../../src/codec/codec-keys.js';

const key = (): string => randomBytes(32).toString('base64');
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('the codec keys from the environment', () => {
  it('are none when neither variable is set: payloads stay plain', () => {
    expect(codecKeysFrom({})).toBeNull();
  });

  it('take id:base64 pairs inline, the last encrypting', () => {
    const [a, b] = [key(), key()];
    const keys = codecKeysFrom({ CHAMPION_LOOP_CODEC_KEYS: `2026-11:${a}, 2026-12:${b}` });
    expect(keys?.keys.map((k) => k.id)).toEqual(['2026-11', '2026-12']);
    expect(keys?.current.id).toBe('2026-12');
    expect(keys?.current.key.equals(Buffer.from(b, 'base64'))).toBe(true);
  });

  it('take "id base64" lines from a file, skipping blanks and comments', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'codec-keys-'));
    dirs.push(dir);
    const file = join(dir, 'keys');
    await writeFile(file, `# rotated monthly\nold ${key()}\n\nnew ${key()}\n`);
    expect(codecKeysFrom({ CHAMPION_LOOP_CODEC_KEY_FILE: file })?.current.id).toBe('new');
  });

  it('refuse what cannot be a key, saying what a key looks like', () => {
    const refused = (env: NodeJS.ProcessEnv): string => {
      try {
        codecKeysFrom(env);
      } catch (error) {
        expect(error).toBeInstanceOf(CodecKeyError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ CHAMPION_LOOP_CODEC_KEYS: `k1:${randomBytes(16).toString('base64')}` })).toMatch(
      /key 'k1' is not 32 bytes of base64; .*openssl rand -base64 32/,
    );
    expect(refused({ CHAMPION_LOOP_CODEC_KEYS: key() })).toMatch(/has no id/);
    expect(refused({ CHAMPION_LOOP_CODEC_KEYS: `bad id:${key()}` })).toMatch(/key id 'bad id' is not a valid id/);
    expect(refused({ CHAMPION_LOOP_CODEC_KEYS: `k:${key()},k:${key()}` })).toMatch(/'k' appears twice/);
    expect(refused({ CHAMPION_LOOP_CODEC_KEYS: ' , ' })).toMatch(/holds no key/);
    expect(refused({ CHAMPION_LOOP_CODEC_KEYS: `k:${key()}`, CHAMPION_LOOP_CODEC_KEY_FILE: '/x' })).toMatch(/not both/);
    expect(refused({ CHAMPION_LOOP_CODEC_KEY_FILE: '/no/such/keys' })).toMatch(/\/no\/such\/keys: ENOENT/);
  });
});
