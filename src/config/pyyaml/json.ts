// Through JSON (Temporal payloads): a PyYAML value and back, with what JSON would change tagged.
import { constructFloat, constructInt } from './construct.js';
import { floatText } from './float.js';
import { PyFloat, PyTimestamp, type PyValue } from './types.js';

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
    if (
      entries.some(
        ([key]) => typeof key !== 'string' || INDEX_LIKE.test(key) || (TAGGED as readonly string[]).includes(key),
      )
    ) {
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
        (text as unknown[]).map((pair) =>
          Array.isArray(pair) ? [fromJsonSafe(pair[0]), fromJsonSafe(pair[1])] : [pair, null],
        ),
      );
    }
  }
  return new Map(entries.map(([key, item]) => [key, fromJsonSafe(item)]));
}
