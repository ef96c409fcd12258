// PyYAML's SafeRepresenter (yaml/representer.py): the tag and text a value is written with, and
// whether that text would read back as the same tag when plain.
import { floatText } from './float.js';
import { resolvePlain } from './resolve.js';
import { PyFloat, PyTimestamp } from './types.js';

export interface ScalarEvent {
  readonly kind: 'scalar';
  readonly tag: string;
  readonly value: string;
  readonly plainImplicit: boolean;
  readonly anchorable: object | null;
}

export function representScalar(value: unknown): ScalarEvent | null {
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
    return Number.isInteger(value) && !Object.is(value, -0)
      ? event('int', BigInt(value).toString())
      : event('float', floatText(value));
  }
  if (value instanceof PyFloat) return event('float', floatText(value.value));
  if (value instanceof PyTimestamp) return event('timestamp', value.text, value);
  return null;
}

export function entriesOf(value: object): [unknown, unknown][] {
  if (value instanceof Map) return [...(value as Map<unknown, unknown>).entries()];
  return Object.entries(value);
}
