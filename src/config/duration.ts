/** A duration as loop.yaml writes it: a positive whole number and one unit ('500ms', '90s', '10m', '24h', '2d'). */
export type DurationText = `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`;

/** What a duration must look like; also what Temporal's ms-style strings accept. */
const DURATION_PATTERN = /^([1-9][0-9]*)(ms|s|m|h|d)$/;

/** How the error messages describe a valid duration. */
export const DURATION_EXPECTED = "a duration like '500ms', '90s', '10m', '24h' or '2d'";

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Whether a value is a duration string this project accepts. */
export function isDuration(value: unknown): value is DurationText {
  return typeof value === 'string' && DURATION_PATTERN.test(value);
}

/** Milliseconds in a duration string; throws a RangeError for anything else. */
export function durationMs(text: string): number {
  const match = DURATION_PATTERN.exec(text);
  const amount = match?.[1];
  const unit = UNIT_MS[match?.[2] ?? ''];
  if (amount === undefined || unit === undefined) {
    throw new RangeError(`${JSON.stringify(text)} is not ${DURATION_EXPECTED}`);
  }
  return Number(amount) * unit;
}
