import { describe, expect, it } from 'vitest';
import { abandonedBy, abandonedRuns, resetSpan } from '../../src/ledger-copy/reset-timelines.js';

const run = (runId: string, start: number, resetFrom: string | null = null) => ({ runId, start, resetFrom });

describe('the runs a reset abandoned', () => {
  it('a reset of the newest run abandons that run only', () => {
    expect([...abandonedRuns([run('a', 1), run('b', 2), run('b2', 3, 'b')])]).toEqual(['b']);
  });

  it('a reset of a loop’s first run abandons every run that continued it, the reset run is the loop', () => {
    const runs = [run('a', 1), run('b', 2), run('c', 3), run('a2', 4, 'a')];
    expect([...abandonedRuns(runs)].sort()).toEqual(['a', 'b', 'c']);
  });

  it('a reset whose base run was later abandoned by another reset is abandoned too', () => {
    // c reset to c2; then a reset to a2: everything from a until a2 (c2 included) is gone.
    const runs = [run('a', 1), run('b', 2), run('c', 3), run('c2', 4, 'c'), run('d', 5), run('a2', 6, 'a')];
    expect([...abandonedRuns(runs)].sort()).toEqual(['a', 'b', 'c', 'c2', 'd']);
  });

  it('a base run no longer listed is still named, its span unknown', () => {
    const runs = [run('b', 2), run('a2', 4, 'a')];
    expect(resetSpan(runs[1]!, runs)).toBeNull();
    expect([...abandonedRuns(runs)]).toEqual(['a']);
  });

  it('a span holds its base run and ends before the reset run', () => {
    const listed = [run('a', 10), run('a2', 30, 'a')];
    const span = resetSpan(listed[1]!, listed);
    expect(span).toEqual({ from: 10, until: 30 });
    expect([10, 20, 29].map((start) => abandonedBy([span!], { start }))).toEqual([true, true, true]);
    expect([9, 30, 31].map((start) => abandonedBy([span!], { start }))).toEqual([false, false, false]);
  });

  it('no reset, nothing abandoned', () => {
    expect(abandonedRuns([run('a', 1), run('b', 2)]).size).toBe(0);
  });
});
