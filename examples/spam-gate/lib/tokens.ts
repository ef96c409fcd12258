import type { MailText } from './email.js';
import { hash32, mix32 } from './random.js';

const MAX_WORD = 24;
const SUBJECT = hash32('subject');

function isWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 36 || code === 33;
}

/**
 * The hashes of the words of a text (ASCII letters, digits, `$` and `!`, case folded), equal to
 * hash32 of each lower-case word. Hashed while scanning because a corpus has millions of words
 * and building a string for each would dominate every step's run time.
 */
function wordHashes(text: string): number[] {
  const hashes: number[] = [];
  let h = 0x811c9dc5;
  let length = 0;
  for (let i = 0; i <= text.length; i += 1) {
    let code = i < text.length ? text.charCodeAt(i) : 32;
    if (code >= 65 && code <= 90) code += 32;
    if (isWordChar(code)) {
      h = Math.imul(h ^ code, 0x01000193);
      length += 1;
      continue;
    }
    if (length > 0 && length <= MAX_WORD) {
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      hashes.push(h >>> 0);
    }
    h = 0x811c9dc5;
    length = 0;
  }
  return hashes;
}

/**
 * The token hashes of a mail: subject words (marked, since "free" in a subject says more than
 * in a body), body words and, with `ngram: 2`, adjacent body word pairs.
 */
export function mailTokens(mail: MailText, ngram: 1 | 2): Uint32Array {
  const body = wordHashes(mail.body);
  const subject = wordHashes(mail.subject);
  const pairs = ngram === 2 ? Math.max(0, body.length - 1) : 0;
  const tokens = new Uint32Array(subject.length + body.length + pairs);
  let at = 0;
  for (const hash of subject) tokens[at++] = mix32(SUBJECT, hash);
  for (const hash of body) tokens[at++] = hash;
  for (let i = 0; i < pairs; i += 1) tokens[at++] = mix32(body[i] ?? 0, body[i + 1] ?? 0);
  return tokens;
}
