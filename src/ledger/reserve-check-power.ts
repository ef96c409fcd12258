import { reservePower, type ReservePower } from '../rules/reserve-power.js';
import type { ReserveCheckRow } from './rows.js';

/**
 * What a recorded reserve check could have seen (the least rise per error class its z-test
 * detects with 80% power), from the counts the row already keeps: status, the report and the
 * Web UI all derive it from the row, so they agree, and ledgers stay as the loop wrote them.
 * Null when the check could not run (no reserve counts).
 */
export function reserveCheckPower(
  row: Pick<ReserveCheckRow, 'status' | 'compared' | 'test' | 'reserve' | 'test_decided' | 'reserve_decided'>,
): ReservePower | null {
  const decided = row.compared === 'decided';
  const test = decided ? row.test_decided : row.test;
  const reserve = decided ? row.reserve_decided : row.reserve;
  if (row.status !== 'ok' || !test || !reserve) {
    return null;
  }
  return reservePower(test, reserve);
}

/** The power as one line of text: `status` and the Web UI print it. */
export function describeReservePower(power: ReservePower): string {
  const rise = (value: number | null): string =>
    value === null ? 'no rise at all' : `+${(value * 100).toFixed(1)} pts`;
  const verdict = power.too_small
    ? '; too small to mean much: grow the reserve set (a larger held-out fraction) for a check that can see a regression'
    : '';
  return `could detect (${Math.round(power.power * 100)}% power) Fail->Pass ${rise(power.f2p_detectable)}, Pass->Fail ${rise(power.p2f_detectable)}${verdict}`;
}
