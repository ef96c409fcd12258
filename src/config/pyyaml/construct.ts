// PyYAML's SafeConstructor (yaml/constructor.py) for scalars: the Python int, float, bool, None,
// date or datetime a resolved tag and its text make.
import { pad } from './pad.js';
import { PyFloat, type PyScalar, PyTimestamp } from './types.js';

function toInt(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

export function constructInt(text: string): number | bigint {
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

export function constructFloat(text: string): PyFloat {
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

/** Python's date/datetime construction and `isoformat` (date) / `isoformat(' ')` (datetime). */
function constructTimestamp(text: string): PyTimestamp {
  const match = TIMESTAMP_PARTS.exec(text);
  if (match === null) throw new Error(`not a timestamp: ${text}`);
  const [, year, month, day, hour, minute, second, fraction, tz, tzSign, tzHour, tzMinute] = match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const daysIn = [
    31,
    y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28,
    31,
    30,
    31,
    30,
    31,
    31,
    30,
    31,
    30,
    31,
  ];
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

export function constructScalar(tag: string, text: string): PyScalar {
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
      throw new Error(
        `could not determine a constructor for the tag 'tag:yaml.org,2002:${tag}' (${JSON.stringify(text)})`,
      );
  }
}
