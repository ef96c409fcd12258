import type { PairedDiscordant } from './paired-rule.js';

/**
 * Which test items one checkpoint got wrong, compact enough for an eval row (loop.yaml
 * `champion_rule: paired`). `f2p` is a bitset over the fail items (target 0) in scores-file
 * order, set where the item got through; `p2f` one over the pass items (target 1), set where the
 * item was failed. Bit i is bit (i % 8) of byte floor(i / 8), base64 encoded: 2,000 items take
 * 2,000 bits in all, about 336 characters.
 */
export interface ItemErrors {
  /** Identity of the test items: a short hash of the ordered item ids and targets (the activity computes it). */
  readonly items: string;
  /** The block the errors are of: plain decisions (`result`) or after the reject band (`decided`). */
  readonly block: 'result' | 'decided';
  readonly fail_count: number;
  readonly pass_count: number;
  readonly f2p: string;
  readonly p2f: string;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const INDEX = new Map([...ALPHABET].map((char, index) => [char, index]));

// Workflow code has no Buffer: base64 by hand, both ways.
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] as number;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const n = (a << 16) | (b << 8) | c;
    out += ALPHABET[(n >> 18) & 63] as string;
    out += ALPHABET[(n >> 12) & 63] as string;
    out += i + 1 < bytes.length ? (ALPHABET[(n >> 6) & 63] as string) : '=';
    out += i + 2 < bytes.length ? (ALPHABET[n & 63] as string) : '=';
  }
  return out;
}

export function fromBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new RangeError(`not base64 (length ${text.length} is not a multiple of 4)`);
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let at = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j += 1) {
      const char = text[i + j] as string;
      const value = char === '=' && i + j >= text.length - padding ? 0 : INDEX.get(char);
      if (value === undefined) throw new RangeError(`not base64: '${char}' at ${i + j}`);
      n = (n << 6) | value;
    }
    for (const shift of [16, 8, 0]) {
      if (at < bytes.length) bytes[at++] = (n >> shift) & 255;
    }
  }
  return bytes;
}

/** A bitset of the given flags, base64 encoded. */
export function encodeBits(flags: readonly boolean[]): string {
  const bytes = new Uint8Array(Math.ceil(flags.length / 8));
  flags.forEach((flag, index) => {
    if (flag) bytes[index >> 3] = (bytes[index >> 3] as number) | (1 << (index & 7));
  });
  return toBase64(bytes);
}

/** The flags of an encoded bitset of `length` items. */
export function decodeBits(text: string, length: number): boolean[] {
  const bytes = fromBase64(text);
  if (bytes.length !== Math.ceil(length / 8)) {
    throw new RangeError(`a bitset of ${length} items takes ${Math.ceil(length / 8)} bytes, not ${bytes.length}`);
  }
  return Array.from({ length }, (_, index) => (((bytes[index >> 3] as number) >> (index & 7)) & 1) === 1);
}

/** What the paired comparison reads of one scores row; margin > 0 passes the item. */
export interface MarginRow {
  readonly margin: number;
  readonly target: 0 | 1;
}

/** A reject band (docs/contract.md): margins inside [low, high] are neither passed nor failed. */
export interface Band {
  readonly low: number;
  readonly high: number;
}

/**
 * The error bitsets of one scores file: plain decisions (margin > 0 passes), or with a band the
 * decisions after it (a fail above `high` got through, a pass below `low` was failed), as the
 * evaluator counts `decided`.
 */
export function itemErrorsOf(items: string, rows: readonly MarginRow[], band: Band | null): ItemErrors {
  const fails = rows.filter((row) => row.target === 0);
  const passes = rows.filter((row) => row.target === 1);
  const failPassed = (row: MarginRow): boolean => (band === null ? row.margin > 0 : row.margin > band.high);
  const passFailed = (row: MarginRow): boolean => (band === null ? row.margin <= 0 : row.margin < band.low);
  return {
    items,
    block: band === null ? 'result' : 'decided',
    fail_count: fails.length,
    pass_count: passes.length,
    f2p: encodeBits(fails.map(failPassed)),
    p2f: encodeBits(passes.map(passFailed)),
  };
}

/** The discordant items of a champion and a challenger, or why the two records cannot be paired. */
export type Pairing =
  { readonly ok: true; readonly discordant: PairedDiscordant } | { readonly ok: false; readonly reason: string };

function discordantOf(
  champion: string,
  challenger: string,
  length: number,
): { champion_only: number; challenger_only: number } {
  const a = decodeBits(champion, length);
  const b = decodeBits(challenger, length);
  let championOnly = 0;
  let challengerOnly = 0;
  a.forEach((wrong, index) => {
    if (wrong && !b[index]) championOnly += 1;
    if (!wrong && b[index]) challengerOnly += 1;
  });
  return { champion_only: championOnly, challenger_only: challengerOnly };
}

/** Pairs two records item by item: only on the same test items, of the same block. */
export function pairRecords(champion: ItemErrors | undefined, challenger: ItemErrors | undefined): Pairing {
  if (champion === undefined) return { ok: false, reason: 'the champion has no per-item record' };
  if (challenger === undefined) return { ok: false, reason: 'the challenger has no per-item record' };
  if (
    champion.items !== challenger.items ||
    champion.fail_count !== challenger.fail_count ||
    champion.pass_count !== challenger.pass_count
  ) {
    return { ok: false, reason: `different test items (${champion.items} and ${challenger.items})` };
  }
  if (champion.block !== challenger.block) {
    return { ok: false, reason: `errors of different blocks (${champion.block} and ${challenger.block})` };
  }
  return {
    ok: true,
    discordant: {
      f2p: discordantOf(champion.f2p, challenger.f2p, champion.fail_count),
      p2f: discordantOf(champion.p2f, challenger.p2f, champion.pass_count),
    },
  };
}
