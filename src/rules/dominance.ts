import type { Counts } from './types.js';

/** The (Fail->Pass, Pass->Fail) pair of one held-out result. */
export function counts(result: Counts): readonly [f2p: number, p2f: number] {
  return [result.fail_to_pass_count, result.pass_to_fail_count];
}

/** Whether `next` Pareto-dominates `current`: no count worse and at least one better. */
export function dominates(next: Counts, current: Counts): boolean {
  const [nextF2p, nextP2f] = counts(next);
  const [currentF2p, currentP2f] = counts(current);
  return nextF2p <= currentF2p && nextP2f <= currentP2f && (nextF2p < currentF2p || nextP2f < currentP2f);
}
