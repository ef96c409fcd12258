import { readFileSync } from 'node:fs';

// The payload codec's keys, from the environment: CHAMPION_LOOP_CODEC_KEYS holds them inline
// (`id:base64,id:base64`), CHAMPION_LOOP_CODEC_KEY_FILE names a file of `id base64` lines. The last
// key encrypts; every key decrypts, so a key is rotated by adding a new one after it.

/** One AES-256 key and the id payloads name it by. */
export interface CodecKey {
  readonly id: string;
  readonly key: Buffer;
}

/** The keys, the last of them the one that encrypts. */
export interface CodecKeys {
  readonly keys: readonly CodecKey[];
  readonly current: CodecKey;
}

/** The codec's keys are set but unusable; the message says which and how to fix it. */
export class CodecKeyError extends Error {
  override readonly name = 'CodecKeyError';
}

const CODEC_KEYS_VARIABLE = 'CHAMPION_LOOP_CODEC_KEYS';
const CODEC_KEY_FILE_VARIABLE = 'CHAMPION_LOOP_CODEC_KEY_FILE';

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const KEY_BYTES = 32;

const HOW =
  `a key is an id (letters, digits, . _ -) and 32 random bytes in base64, e.g. ` +
  `"k1:$(openssl rand -base64 32)"; ${CODEC_KEYS_VARIABLE} takes id:base64 pairs separated by commas, ` +
  `${CODEC_KEY_FILE_VARIABLE} a file of "id base64" lines; the last key encrypts`;

function parseKey(id: string, base64: string, where: string): CodecKey {
  if (!KEY_ID.test(id)) throw new CodecKeyError(`${where}: key id '${id}' is not a valid id; ${HOW}`);
  const key = Buffer.from(base64, 'base64');
  if (key.length !== KEY_BYTES || key.toString('base64').replace(/=+$/, '') !== base64.replace(/=+$/, '')) {
    throw new CodecKeyError(`${where}: key '${id}' is not ${KEY_BYTES} bytes of base64; ${HOW}`);
  }
  return { id, key };
}

function collect(keys: CodecKey[], where: string): CodecKeys {
  const current = keys.at(-1);
  if (current === undefined) throw new CodecKeyError(`${where} holds no key; ${HOW}`);
  const seen = new Set<string>();
  for (const { id } of keys) {
    if (seen.has(id)) throw new CodecKeyError(`${where}: key id '${id}' appears twice; give each key its own id`);
    seen.add(id);
  }
  return { keys, current };
}

/** The keys the environment sets, or null when it sets none (payloads then travel as plain JSON). */
export function codecKeysFrom(env: NodeJS.ProcessEnv = process.env): CodecKeys | null {
  const inline = env[CODEC_KEYS_VARIABLE];
  const file = env[CODEC_KEY_FILE_VARIABLE];
  if (inline && file) {
    throw new CodecKeyError(`set one of ${CODEC_KEYS_VARIABLE} and ${CODEC_KEY_FILE_VARIABLE}, not both`);
  }
  if (inline) {
    const keys = inline
      .split(',')
      .map((pair) => pair.trim())
      .filter((pair) => pair !== '')
      .map((pair) => {
        const colon = pair.indexOf(':');
        if (colon < 0) throw new CodecKeyError(`${CODEC_KEYS_VARIABLE}: '${pair.slice(0, 8)}...' has no id; ${HOW}`);
        return parseKey(pair.slice(0, colon), pair.slice(colon + 1), CODEC_KEYS_VARIABLE);
      });
    return collect(keys, CODEC_KEYS_VARIABLE);
  }
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CodecKeyError(`${CODEC_KEY_FILE_VARIABLE}=${file}: ${(error as Error).message}`);
    }
    const keys = text
      .split('\n')
      .map((line, index) => ({ line: line.trim(), number: index + 1 }))
      .filter(({ line }) => line !== '' && !line.startsWith('#'))
      .map(({ line, number }) => {
        const [id = '', base64 = '', ...rest] = line.split(/\s+/);
        if (rest.length > 0 || base64 === '') {
          throw new CodecKeyError(`${file}:${number}: expected "id base64"; ${HOW}`);
        }
        return parseKey(id, base64, `${file}:${number}`);
      });
    return collect(keys, file);
  }
  return null;
}
