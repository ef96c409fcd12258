// PyYAML-compatible YAML for job configs: reads with the meaning `yaml.safe_load` gives a file
// (YAML 1.1 resolution) and writes the bytes `yaml.safe_dump(value, sort_keys=False)` writes
// (block style, width 80, indent 2, non-ASCII escaped), so a Python trainer reads the same values
// and `config_sha256` equals the seed's. Pure: no I/O. Ported from PyYAML 6's resolver,
// constructor, representer, serializer and emitter, for the data JSON-like configs hold.
import { type Document, isAlias, isMap, isScalar, isSeq, type Node, parseDocument } from 'yaml';

/** A Python float: `1.0` stays a float (a plain JS number that is whole is written as an int). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A YAML timestamp as PyYAML constructs it (date or datetime); `text` is how PyYAML writes it back. */
export class PyTimestamp {
  constructor(readonly text: string) {}
}

export type PyScalar = null | boolean | string | number | bigint | PyFloat | PyTimestamp;
export type PyValue = PyScalar | PyValue[] | PyMap;
/** A Python dict: insertion order, one entry per Python-equal key. */
export type PyMap = Map<PyScalar, PyValue>;

const TAG = 'tag:yaml.org,2002:';

// ---- resolver (yaml/resolver.py) ------------------------------------------------------------

const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const MERGE = /^(?:<<)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const TIMESTAMP =
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/;
const VALUE = /^(?:=)$/;
const YAML_INDICATOR = /^(?:!|&|\*)$/;

const RESOLVERS: readonly (readonly [string, RegExp, string])[] = [
  ['bool', BOOL, 'yYnNtTfFoO'],
  ['float', FLOAT, '-+0123456789.'],
  ['int', INT, '-+0123456789'],
  ['merge', MERGE, '<'],
  ['null', NULL, '~nN'],
  ['timestamp', TIMESTAMP, '0123456789'],
  ['value', VALUE, '='],
  ['yaml', YAML_INDICATOR, '!&*'],
];

/** The tag (without its prefix) PyYAML's resolver gives a plain scalar. */
export function resolvePlain(value: string): string {
  // Python's `$` also matches before one final newline.
  const candidates = value.endsWith('\n') ? [value, value.slice(0, -1)] : [value];
  for (const [tag, regexp, first] of RESOLVERS) {
    const applies = value === '' ? tag === 'null' : first.includes(value[0] ?? '');
    if (applies && candidates.some((text) => regexp.test(text))) {
      return tag;
    }
  }
  return 'str';
}

// ---- constructor (yaml/constructor.py, SafeConstructor) -------------------------------------

function toInt(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

function constructInt(text: string): number | bigint {
  let value = text.replaceAll('_', '');
  let sign = 1n;
  if (value.startsWith('-')) sign = -1n;
  if (value.startsWith('-') || value.startsWith('+')) value = value.slice(1);
  if (value === '0') return 0;
  if (value.startsWith('0b')) return toInt(sign * parseBigInt(value.slice(2), 2));
  if (value.startsWith('0x')) return toInt(sign * parseBigInt(value.slice(2), 16));
  if (value.startsWith('0')) return toInt(sign * parseBigInt(value, 8));
  if (value.includes(':')) {
    let total = 0n;
    for (const part of value.split(':')) total = total * 60n + parseBigInt(part, 10);
    return toInt(sign * total);
  }
  return toInt(sign * parseBigInt(value, 10));
}

function parseBigInt(digits: string, base: number): bigint {
  if (digits === '') throw new Error(`invalid literal for int() with base ${base}: ''`);
  let total = 0n;
  for (const digit of digits) {
    const value = parseInt(digit, base);
    if (Number.isNaN(value)) throw new Error(`invalid literal for int() with base ${base}: '${digits}'`);
    total = total * BigInt(base) + BigInt(value);
  }
  return total;
}

function constructFloat(text: string): PyFloat {
  let value = text.replaceAll('_', '').toLowerCase();
  let sign = 1;
  if (value.startsWith('-')) sign = -1;
  if (value.startsWith('-') || value.startsWith('+')) value = value.slice(1);
  if (value === '.inf') return new PyFloat(sign * Infinity);
  if (value === '.nan') return new PyFloat(NaN);
  if (value.includes(':')) {
    let total = 0;
    for (const part of value.split(':')) total = total * 60 + Number(part);
    return new PyFloat(sign * total);
  }
  return new PyFloat(sign * Number(value));
}

const TIMESTAMP_PARTS =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** Python's date/datetime construction and `isoformat` (date) / `isoformat(' ')` (datetime). */
function constructTimestamp(text: string): PyTimestamp {
  const match = TIMESTAMP_PARTS.exec(text);
  if (match === null) throw new Error(`not a timestamp: ${text}`);
  const [, year, month, day, hour, minute, second, fraction, tz, tzSign, tzHour, tzMinute] = match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const daysIn = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > (daysIn[mo - 1] ?? 0)) throw new Error(`not a valid date: ${text}`);
  const date = `${pad(y, 4)}-${pad(mo)}-${pad(d)}`;
  if (hour === undefined) return new PyTimestamp(date);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  if (h > 23 || mi > 59 || s > 59) throw new Error(`not a valid time: ${text}`);
  let micro = 0;
  if (fraction !== undefined && fraction !== '') micro = Number(fraction.slice(0, 6).padEnd(6, '0'));
  let out = `${date} ${pad(h)}:${pad(mi)}:${pad(s)}${micro === 0 ? '' : `.${pad(micro, 6)}`}`;
  if (tzSign !== undefined) {
    let minutes = Number(tzHour) * 60 + Number(tzMinute ?? 0);
    if (tzSign === '-') minutes = -minutes;
    if (Math.abs(minutes) >= 24 * 60) throw new Error(`offset must be less than 24 hours: ${text}`);
    const abs = Math.abs(minutes);
    out += `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  } else if (tz !== undefined) {
    out += '+00:00';
  }
  return new PyTimestamp(out);
}

function constructScalar(tag: string, text: string): PyScalar {
  switch (tag) {
    case 'str':
      return text;
    case 'null':
      return null;
    case 'bool': {
      const value = text.toLowerCase();
      if (['yes', 'true', 'on'].includes(value)) return true;
      if (['no', 'false', 'off'].includes(value)) return false;
      throw new Error(`not a boolean: ${text}`);
    }
    case 'int':
      return constructInt(text);
    case 'float':
      return constructFloat(text);
    case 'timestamp':
      return constructTimestamp(text);
    default:
      throw new Error(`could not determine a constructor for the tag 'tag:yaml.org,2002:${tag}' (${JSON.stringify(text)})`);
  }
}

/** The Python-equality identity of a dict key: 1, 1.0 and True are one key, as are 0 and False. */
function keyIdentity(key: PyScalar): string {
  if (key === null) return 'None';
  if (typeof key === 'string') return `s:${key}`;
  if (typeof key === 'boolean') return `n:${key ? 1 : 0}`;
  if (typeof key === 'number' || typeof key === 'bigint') return `n:${String(key)}`;
  if (key instanceof PyFloat) return Number.isInteger(key.value) ? `n:${BigInt(key.value)}` : `n:${key.value}`;
  return `t:${key.text}`;
}

class Constructor {
  private readonly built = new Map<Node, PyValue>();
  private readonly building = new Set<Node>();

  constructor(private readonly document: Document) {}

  node(node: unknown): PyValue {
    if (isAlias(node)) {
      return this.node(node.resolve(this.document));
    }
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) {
      throw new Error('an unsupported YAML node');
    }
    const done = this.built.get(node);
    if (done !== undefined || this.built.has(node)) return done as PyValue;
    if (this.building.has(node)) throw new Error('a recursive alias is not supported in a config');
    this.building.add(node);
    const value = isScalar(node) ? this.scalar(node) : isSeq(node) ? this.sequence(node) : this.mapping(node);
    this.building.delete(node);
    this.built.set(node, value);
    return value;
  }

  private scalar(node: { value: unknown; type?: string; tag?: string }): PyScalar {
    const text = String(node.value);
    const tag = node.tag;
    if (tag === undefined) return node.type === 'PLAIN' ? constructScalar(resolvePlain(text), text) : text;
    // The non-specific tag `!` resolves as an untagged plain scalar would, quoted or not (PyYAML's parser).
    if (tag === '!') return constructScalar(resolvePlain(text), text);
    if (tag.startsWith(TAG)) return constructScalar(tag.slice(TAG.length), text);
    throw new Error(`could not determine a constructor for the tag '${tag}'`);
  }

  private checkTag(node: { tag?: string }, kind: 'seq' | 'map'): void {
    if (node.tag !== undefined && node.tag !== '!' && node.tag !== `${TAG}${kind}`) {
      throw new Error(`could not determine a constructor for the tag '${node.tag}'`);
    }
  }

  private sequence(node: { items: unknown[]; tag?: string }): PyValue[] {
    this.checkTag(node, 'seq');
    const list: PyValue[] = [];
    this.built.set(node as Node, list);
    for (const item of node.items) list.push(this.node(item));
    return list;
  }

  /** PyYAML's flatten_mapping: merged pairs (`<<`) first, then the mapping's own. */
  private pairs(node: { items: { key: unknown; value: unknown }[] }): { key: unknown; value: unknown }[] {
    const own: { key: unknown; value: unknown }[] = [];
    const merged: { key: unknown; value: unknown }[] = [];
    for (const pair of node.items) {
      const key = pair.key;
      if (isScalar(key) && key.tag === undefined && key.type === 'PLAIN' && String(key.value) === '<<') {
        const target = isAlias(pair.value) ? pair.value.resolve(this.document) : pair.value;
        if (isMap(target)) {
          merged.push(...this.pairs(target));
        } else if (isSeq(target)) {
          const groups = target.items.map((item) => {
            const map = isAlias(item) ? item.resolve(this.document) : item;
            if (!isMap(map)) throw new Error('expected a mapping for merging');
            return this.pairs(map);
          });
          for (const group of groups.reverse()) merged.push(...group);
        } else {
          throw new Error('expected a mapping or list of mappings for merging');
        }
      } else {
        own.push(pair);
      }
    }
    return [...merged, ...own];
  }

  private mapping(node: { items: { key: unknown; value: unknown }[]; tag?: string }): PyMap {
    this.checkTag(node, 'map');
    const map: PyMap = new Map();
    this.built.set(node as Node, map);
    const keys = new Map<string, PyScalar>();
    for (const pair of this.pairs(node)) {
      const keyNode = pair.key;
      // A plain `=` key is a string to PyYAML (flatten_mapping retags it).
      const key: PyValue =
        isScalar(keyNode) && keyNode.tag === undefined && keyNode.type === 'PLAIN' && String(keyNode.value) === '='
          ? '='
          : keyNode === null || keyNode === undefined
            ? null
            : this.node(keyNode);
      if (Array.isArray(key) || key instanceof Map) throw new Error('found unhashable key: a list or mapping as a mapping key');
      const value = pair.value === null || pair.value === undefined ? null : this.node(pair.value);
      const identity = keyIdentity(key);
      const existing = keys.get(identity);
      if (existing === undefined && !keys.has(identity)) {
        keys.set(identity, key);
        map.set(key, value);
      } else {
        map.set(existing as PyScalar, value);
      }
    }
    return map;
  }
}

/** Reads one YAML document with the meaning PyYAML's `yaml.safe_load` gives it. Throws on a syntax error. */
export function loadPyYaml(text: string): PyValue {
  const document = parseDocument(text, { version: '1.1', schema: 'failsafe', uniqueKeys: false, merge: false });
  if (document.errors.length > 0) {
    throw new Error(document.errors.map((error) => error.message).join('; '));
  }
  if (document.contents === null) return null;
  return new Constructor(document).node(document.contents);
}

// ---- representer (yaml/representer.py, SafeRepresenter) -------------------------------------

/** Python's `repr(float)` as PyYAML's represent_float adjusts it. */
export function floatText(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  if (value === Infinity) return '.inf';
  if (value === -Infinity) return '-.inf';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const point = Number(exponent) + 1; // value = 0.DIGITS x 10^point
  let text: string;
  if (value !== 0 && (point <= -4 || point > 16)) {
    const e = point - 1;
    text = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : '.0'}e${e < 0 ? '-' : '+'}${pad(Math.abs(e))}`;
  } else if (value === 0) {
    text = '0.0';
  } else if (point <= 0) {
    text = `0.${'0'.repeat(-point)}${digits}`;
  } else if (point >= digits.length) {
    text = `${digits}${'0'.repeat(point - digits.length)}.0`;
  } else {
    text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  return sign + text;
}

interface ScalarEvent {
  readonly kind: 'scalar';
  readonly tag: string;
  readonly value: string;
  readonly plainImplicit: boolean;
  readonly anchorable: object | null;
}

function representScalar(value: unknown): ScalarEvent | null {
  const event = (tag: string, text: string, anchorable: object | null = null): ScalarEvent => ({
    kind: 'scalar',
    tag,
    value: text,
    plainImplicit: resolvePlain(text) === tag,
    anchorable,
  });
  if (value === null || value === undefined) return event('null', 'null');
  if (typeof value === 'boolean') return event('bool', value ? 'true' : 'false');
  if (typeof value === 'string') return event('str', value);
  if (typeof value === 'bigint') return event('int', value.toString());
  if (typeof value === 'number') {
    return Number.isInteger(value) && !Object.is(value, -0) ? event('int', BigInt(value).toString()) : event('float', floatText(value));
  }
  if (value instanceof PyFloat) return event('float', floatText(value.value));
  if (value instanceof PyTimestamp) return event('timestamp', value.text, value);
  return null;
}

function entriesOf(value: object): [unknown, unknown][] {
  if (value instanceof Map) return [...(value as Map<unknown, unknown>).entries()];
  return Object.entries(value);
}

// ---- emitter (yaml/emitter.py), block style, width 80, indent 2, allow_unicode False ----------

const BREAKS = '\n\u0085\u2028\u2029';
const WHITESPACE = '\0 \t\r\n\u0085\u2028\u2029';
const BEST_WIDTH = 80;
const BEST_INDENT = 2;
const ESCAPES: Record<string, string> = {
  '\0': '0',
  '\x07': 'a',
  '\x08': 'b',
  '\x09': 't',
  '\x0A': 'n',
  '\x0B': 'v',
  '\x0C': 'f',
  '\x0D': 'r',
  '\x1B': 'e',
  '"': '"',
  '\\': '\\',
  '\u0085': 'N',
  '\u00A0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

interface Analysis {
  readonly chars: string[];
  readonly empty: boolean;
  readonly multiline: boolean;
  readonly allowBlockPlain: boolean;
  readonly allowSingleQuoted: boolean;
}

function analyze(scalar: string): Analysis {
  const chars = Array.from(scalar);
  if (chars.length === 0) return { chars, empty: true, multiline: false, allowBlockPlain: true, allowSingleQuoted: true };
  let blockIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  if (scalar.startsWith('---') || scalar.startsWith('...')) blockIndicators = true;
  let precededByWhitespace = true;
  let followedByWhitespace = chars.length === 1 || WHITESPACE.includes(chars[1] ?? '');
  let previousSpace = false;
  let previousBreak = false;
  for (let index = 0; index < chars.length; index += 1) {
    const ch = chars[index] ?? '';
    if (index === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true;
      if ('?:'.includes(ch) && followedByWhitespace) blockIndicators = true;
      if (ch === '-' && followedByWhitespace) blockIndicators = true;
    } else {
      if (ch === ':' && followedByWhitespace) blockIndicators = true;
      if (ch === '#' && precededByWhitespace) blockIndicators = true;
    }
    if (BREAKS.includes(ch)) lineBreaks = true;
    if (!(ch === '\n' || (ch >= '\x20' && ch <= '\x7E'))) {
      // allow_unicode is False: every non-ASCII character is special, printable or not.
      specialCharacters = true;
    }
    if (ch === ' ') {
      if (index === 0) leadingSpace = true;
      if (index === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (BREAKS.includes(ch)) {
      if (index === 0) leadingBreak = true;
      if (index === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = WHITESPACE.includes(ch);
    followedByWhitespace = index + 2 >= chars.length || WHITESPACE.includes(chars[index + 2] ?? '');
  }
  let allowBlockPlain = true;
  let allowSingleQuoted = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) allowBlockPlain = false;
  if (breakSpace) allowBlockPlain = allowSingleQuoted = false;
  if (spaceBreak || specialCharacters) allowBlockPlain = allowSingleQuoted = false;
  if (lineBreaks) allowBlockPlain = false;
  if (blockIndicators) allowBlockPlain = false;
  return { chars, empty: false, multiline: lineBreaks, allowBlockPlain, allowSingleQuoted };
}

interface Context {
  readonly root?: boolean;
  readonly mapping?: boolean;
  readonly simpleKey?: boolean;
}

class Emitter {
  private out = '';
  private column = 0;
  private whitespace = true;
  private indention = true;
  private openEnded = false;
  private indent: number | null = null;
  private readonly indents: (number | null)[] = [];
  private readonly anchors = new Map<object, string | null>();
  private readonly serialized = new Set<object>();
  private lastAnchor = 0;

  dump(value: unknown): string {
    this.anchorNode(value);
    this.node(value, { root: true });
    this.writeIndent();
    if (this.openEnded) {
      this.writeIndicator('...', true);
      this.writeIndent();
    }
    return this.out;
  }

  private anchorable(value: unknown): object | null {
    if (value instanceof Map || Array.isArray(value) || value instanceof PyTimestamp) return value as object;
    if (typeof value === 'object' && value !== null && !(value instanceof PyFloat)) return value;
    return null;
  }

  /** The serializer's anchor_node: a node met twice gets `idNNN`, numbered as met again. */
  private anchorNode(value: unknown): void {
    const node = this.anchorable(value);
    if (node === null) return;
    if (this.anchors.has(node)) {
      if (this.anchors.get(node) === null) {
        this.lastAnchor += 1;
        this.anchors.set(node, `id${pad(this.lastAnchor, 3)}`);
      }
      return;
    }
    this.anchors.set(node, null);
    if (Array.isArray(value)) {
      for (const item of value) this.anchorNode(item);
    } else if (!(value instanceof PyTimestamp)) {
      for (const [key, item] of entriesOf(node)) {
        this.anchorNode(key);
        this.anchorNode(item);
      }
    }
  }

  private node(value: unknown, context: Context): void {
    const object = this.anchorable(value);
    const anchor = object === null ? null : (this.anchors.get(object) ?? null);
    if (object !== null && this.serialized.has(object)) {
      this.writeIndicator(`*${anchor ?? ''}`, true);
      return;
    }
    if (object !== null) this.serialized.add(object);
    if (anchor !== null) this.writeIndicator(`&${anchor}`, true);
    const scalar = representScalar(value);
    if (scalar !== null) {
      this.increaseIndent(true);
      this.scalar(scalar, context);
      this.indent = this.indents.pop() ?? null;
      return;
    }
    if (Array.isArray(value)) {
      if (value.length === 0) {
        this.emptyFlow('[', ']');
        return;
      }
      this.increaseIndent(false, context.mapping === true && !this.indention);
      for (const item of value) {
        this.writeIndent();
        this.writeIndicator('-', true, false, true);
        this.node(item, {});
      }
      this.indent = this.indents.pop() ?? null;
      return;
    }
    if (typeof value === 'object' && value !== null) {
      const entries = entriesOf(value);
      if (entries.length === 0) {
        this.emptyFlow('{', '}');
        return;
      }
      this.increaseIndent(false);
      for (const [key, item] of entries) {
        this.writeIndent();
        if (this.isSimpleKey(key)) {
          this.node(key, { mapping: true, simpleKey: true });
          this.writeIndicator(':', false);
          this.node(item, { mapping: true });
        } else {
          this.writeIndicator('?', true, false, true);
          this.node(key, { mapping: true });
          this.writeIndent();
          this.writeIndicator(':', true, false, true);
          this.node(item, { mapping: true });
        }
      }
      this.indent = this.indents.pop() ?? null;
      return;
    }
    throw new Error(`cannot represent an object: ${String(value)}`);
  }

  private isSimpleKey(key: unknown): boolean {
    const object = this.anchorable(key);
    if (object !== null && this.serialized.has(object)) return true; // an alias
    let length = 0;
    const anchor = object === null ? null : (this.anchors.get(object) ?? null);
    if (anchor !== null) length += anchor.length;
    const scalar = representScalar(key);
    if (scalar === null) {
      const empty = Array.isArray(key) ? key.length === 0 : entriesOf(key as object).length === 0;
      return length + 5 < 128 && empty; // `!!seq` / `!!map`
    }
    length += 2 + scalar.tag.length; // the prepared tag, `!!str`
    const analysis = analyze(scalar.value);
    length += analysis.chars.length;
    return length < 128 && !analysis.empty && !analysis.multiline;
  }

  private emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true);
    this.increaseIndent(true);
    this.indent = this.indents.pop() ?? null;
    this.writeIndicator(close, false);
  }

  private increaseIndent(flow: boolean, indentless = false): void {
    this.indents.push(this.indent);
    if (this.indent === null) {
      this.indent = flow ? BEST_INDENT : 0;
    } else if (!indentless) {
      this.indent += BEST_INDENT;
    }
  }

  private scalar(event: ScalarEvent, context: Context): void {
    const analysis = analyze(event.value);
    const simpleKey = context.simpleKey === true;
    let style: '' | "'" | '"' = '"';
    if (event.plainImplicit && !(simpleKey && (analysis.empty || analysis.multiline)) && analysis.allowBlockPlain) {
      style = '';
    } else if (analysis.allowSingleQuoted && !(simpleKey && analysis.multiline)) {
      style = "'";
    }
    const split = !simpleKey;
    if (style === '"') this.writeDoubleQuoted(analysis.chars, split);
    else if (style === "'") this.writeSingleQuoted(analysis.chars, split);
    else this.writePlain(analysis.chars, split, context.root === true);
  }

  private write(data: string): void {
    this.out += data;
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, whitespace = false, indention = false): void {
    const data = this.whitespace || !needWhitespace ? indicator : ` ${indicator}`;
    this.whitespace = whitespace;
    this.indention = this.indention && indention;
    this.column += Array.from(data).length;
    this.openEnded = false;
    this.write(data);
  }

  private writeIndent(): void {
    const indent = this.indent ?? 0;
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) {
      this.writeLineBreak();
    }
    if (this.column < indent) {
      this.whitespace = true;
      this.write(' '.repeat(indent - this.column));
      this.column = indent;
    }
  }

  private writeLineBreak(data = '\n'): void {
    this.whitespace = true;
    this.indention = true;
    this.column = 0;
    this.write(data);
  }

  private writeText(chars: string[], start: number, end: number): void {
    this.column += end - start;
    this.write(chars.slice(start, end).join(''));
  }

  private writeBreaks(chars: string[], start: number, end: number): void {
    for (const br of chars.slice(start, end)) {
      this.writeLineBreak(br === '\n' ? '\n' : br);
    }
  }

  private writeSingleQuoted(text: string[], split: boolean): void {
    this.writeIndicator("'", true);
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= text.length; end += 1) {
      const ch = end < text.length ? text[end] : undefined;
      if (spaces) {
        if (ch === undefined || ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split && start !== 0 && end !== text.length) {
            this.writeIndent();
          } else {
            this.writeText(text, start, end);
          }
          start = end;
        }
      } else if (breaks) {
        if (ch === undefined || !BREAKS.includes(ch)) {
          if (text[start] === '\n') this.writeLineBreak();
          this.writeBreaks(text, start, end);
          this.writeIndent();
          start = end;
        }
      } else if (ch === undefined || ' \n\u0085\u2028\u2029'.includes(ch) || ch === "'") {
        if (start < end) {
          this.writeText(text, start, end);
          start = end;
        }
      }
      if (ch === "'") {
        this.column += 2;
        this.write("''");
        start = end + 1;
      }
      if (ch !== undefined) {
        spaces = ch === ' ';
        breaks = BREAKS.includes(ch);
      }
    }
    this.writeIndicator("'", false);
  }

  private writeDoubleQuoted(text: string[], split: boolean): void {
    this.writeIndicator('"', true);
    let start = 0;
    for (let end = 0; end <= text.length; end += 1) {
      const ch = end < text.length ? text[end] : undefined;
      if (ch === undefined || '"\\\u0085\u2028\u2029\uFEFF'.includes(ch) || !(ch >= '\x20' && ch <= '\x7E')) {
        if (start < end) {
          this.writeText(text, start, end);
          start = end;
        }
        if (ch !== undefined) {
          const code = ch.codePointAt(0) ?? 0;
          const data =
            ESCAPES[ch] !== undefined
              ? `\\${ESCAPES[ch]}`
              : code <= 0xff
                ? `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`
                : code <= 0xffff
                  ? `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`
                  : `\\U${code.toString(16).toUpperCase().padStart(8, '0')}`;
          this.column += data.length;
          this.write(data);
          start = end + 1;
        }
      }
      if (end > 0 && end < text.length - 1 && (ch === ' ' || start >= end) && this.column + (end - start) > BEST_WIDTH && split) {
        const data = `${text.slice(start, end).join('')}\\`;
        if (start < end) start = end;
        this.column += Array.from(data).length;
        this.write(data);
        this.writeIndent();
        this.whitespace = false;
        this.indention = false;
        if (text[start] === ' ') {
          this.column += 1;
          this.write('\\');
        }
      }
    }
    this.writeIndicator('"', false);
  }

  private writePlain(text: string[], split: boolean, root: boolean): void {
    if (root) this.openEnded = true;
    if (text.length === 0) return;
    if (!this.whitespace) {
      this.column += 1;
      this.write(' ');
    }
    this.whitespace = false;
    this.indention = false;
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= text.length; end += 1) {
      const ch = end < text.length ? text[end] : undefined;
      if (spaces) {
        if (ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split) {
            this.writeIndent();
            this.whitespace = false;
            this.indention = false;
          } else {
            this.writeText(text, start, end);
          }
          start = end;
        }
      } else if (breaks) {
        if (ch === undefined || !BREAKS.includes(ch)) {
          if (text[start] === '\n') this.writeLineBreak();
          this.writeBreaks(text, start, end);
          this.writeIndent();
          this.whitespace = false;
          this.indention = false;
          start = end;
        }
      } else if (ch === undefined || ' \n\u0085\u2028\u2029'.includes(ch)) {
        this.writeText(text, start, end);
        start = end;
      }
      if (ch !== undefined) {
        spaces = ch === ' ';
        breaks = BREAKS.includes(ch);
      }
    }
  }
}

/**
 * The text `yaml.safe_dump(value, sort_keys=False)` writes. Maps (Map or plain object) keep their
 * order; a JS number that is whole is an int, any other a float; PyFloat is always a float.
 */
export function dumpPyYaml(value: unknown): string {
  return new Emitter().dump(value);
}

// ---- through JSON (Temporal payloads) ---------------------------------------------------------

const TAGGED = ['!!float', '!!int', '!!timestamp', '!!map'] as const;
const INDEX_LIKE = /^(?:0|[1-9][0-9]*)$/;

/**
 * A PyYAML value as JSON can carry it (a candidate's overrides travel through workflow history):
 * what JSON would change is tagged, `{"!!float": "1.0"}`, `{"!!int": "12345678901234567890"}`,
 * `{"!!timestamp": "2024-01-01"}`, `{"!!map": [[key, value], ...]}` (keys not strings, or keys
 * a JS object would reorder). `fromJsonSafe` gives the value back.
 */
export function toJsonSafe(value: PyValue): unknown {
  if (value instanceof PyFloat) {
    const whole = Number.isInteger(value.value) || !Number.isFinite(value.value);
    return whole ? { '!!float': floatText(value.value) } : value.value;
  }
  if (typeof value === 'bigint') return { '!!int': value.toString() };
  if (value instanceof PyTimestamp) return { '!!timestamp': value.text };
  if (Array.isArray(value)) return value.map(toJsonSafe);
  if (value instanceof Map) {
    const entries = [...value.entries()];
    if (entries.some(([key]) => typeof key !== 'string' || INDEX_LIKE.test(key) || (TAGGED as readonly string[]).includes(key))) {
      return { '!!map': entries.map(([key, item]) => [toJsonSafe(key), toJsonSafe(item)]) };
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, toJsonSafe(item)]));
  }
  return value;
}

/** The value `toJsonSafe` tagged; any other JSON value as PyYAML would hold it (objects as maps). */
export function fromJsonSafe(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromJsonSafe);
  if (typeof value !== 'object' || value === null) return value;
  const entries: [string, unknown][] = Object.entries(value);
  const [only] = entries;
  if (entries.length === 1 && only !== undefined) {
    const [tag, text] = only;
    if (tag === '!!float' && typeof text === 'string') return constructFloat(text);
    if (tag === '!!int' && typeof text === 'string') return constructInt(text);
    if (tag === '!!timestamp' && typeof text === 'string') return new PyTimestamp(text);
    if (tag === '!!map' && Array.isArray(text)) {
      return new Map(
        (text as unknown[]).map((pair) => (Array.isArray(pair) ? [fromJsonSafe(pair[0]), fromJsonSafe(pair[1])] : [pair, null])),
      );
    }
  }
  return new Map(entries.map(([key, item]) => [key, fromJsonSafe(item)]));
}
