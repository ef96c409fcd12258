// Python's float repr as PyYAML's SafeRepresenter writes a float (yaml/representer.py).
import { pad } from './pad.js';

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
