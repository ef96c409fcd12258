import { describe, it, expect } from 'vitest';
import { renderReport } from '../../src/client/report/render-report.js';
import { renderStatus } from '../../src/client/render-status.js';
import { stateFromLedger } from '../../src/ledger/from-ledger.js';
import { describeReservePower, reserveCheckPower } from '../../src/ledger/reserve-check-power.js';
import type { ReserveCheckRow } from '../../src/ledger/rows.js';
import { minimumDetectableRise } from '../../src/rules/reserve-power.js';
import type { LoopView } from '../../src/workflows/loop-view.js';
import { seedLedgerRows } from '../client/report/seed-ledger.js';

const rows = seedLedgerRows();
const checks = rows.filter((row): row is ReserveCheckRow => row.type === 'reserve_check');

describe('reserveCheckPower', () => {
  it("derives the check's power from the counts its row keeps, at the reserve check's alpha", () => {
    const check = checks[0] as ReserveCheckRow;
    // 7 of 60 on test, 60 items on reserve; 18 of 240 and 240.
    expect(reserveCheckPower(check)).toEqual({
      power: 0.8,
      f2p_detectable: minimumDetectableRise(7 / 60, 60, 60, 0.01),
      p2f_detectable: minimumDetectableRise(18 / 240, 240, 240, 0.01),
      too_small: true,
    });
  });

  it('reads the decided blocks when the check compared on them', () => {
    const check = checks[0] as ReserveCheckRow;
    const decided = { fail_to_pass_count: 1, fail_count: 2000, pass_to_fail_count: 2, pass_count: 8000 };
    const power = reserveCheckPower({ ...check, compared: 'decided', test_decided: decided, reserve_decided: decided });
    expect(power?.f2p_detectable).toBe(minimumDetectableRise(1 / 2000, 2000, 2000, 0.01));
  });

  it('is null for a check that could not run', () => {
    expect(reserveCheckPower({ ...(checks[0] as ReserveCheckRow), status: 'failed', reserve: null })).toBeNull();
  });

  it('says so in words when the reserve set is too small', () => {
    const text = describeReservePower({ power: 0.8, f2p_detectable: 0.2, p2f_detectable: null, too_small: true });
    expect(text).toBe(
      'could detect (80% power) Fail->Pass +20.0 pts, Pass->Fail no rise at all; too small to mean much: grow the reserve set (a larger held-out fraction) for a check that can see a regression',
    );
  });
});

describe('reserve power where people look', () => {
  it('is a line of `status` once the run recorded a reserve check', () => {
    const view = {
      loop_id: 'gate',
      generation: 1,
      round: 2,
      stopping: false,
      split_ready: true,
      split: 'split',
      champion: null,
      pareto_set: [],
      test_evals: 3,
      tests_since_reserve_check: 0,
      reserve_checks: 1,
      advance_reason: null,
      queued: 0,
      in_flight: [],
      lanes: [],
      candidates: [],
      candidates_error: null,
      split_error: null,
      idle: false,
      last_reserve_power: { power: 0.8, f2p_detectable: 0.031, p2f_detectable: 0.012, too_small: false },
    } as unknown as LoopView;
    expect(renderStatus(view)).toContain(
      'last reserve check could detect (80% power) Fail->Pass +3.1 pts, Pass->Fail +1.2 pts\n',
    );
    expect(renderStatus({ ...view, last_reserve_power: null })).not.toContain('last reserve check could');
  });

  it('is a column of the report, flagging a reserve set too small', () => {
    const state = stateFromLedger(
      rows.map((row) => JSON.stringify(row)).join('\n'),
      'seed-ledger.jsonl',
      { mode: 'default', saturationEvals: 3, maxReserveChecks: 3 },
      'artifacts/champion-loop',
    );
    const html = renderReport(rows, { loopId: 'gate', generatedAt: new Date('2026-01-06T00:00:00Z'), state });
    expect(html).toContain('could detect (80% power)');
    const power = reserveCheckPower(checks[0] as ReserveCheckRow);
    expect(html).toContain(`Fail->Pass +${((power?.f2p_detectable ?? 0) * 100).toFixed(1)} pts`);
    expect(html).toContain('reserve too small');
  });
});
