import { ALPHA } from './constants.js';
import type { RateCounts, ReserveVerdict } from './types.js';
import { worseZTest } from './z-test.js';

/** Hold-up test of a champion on reserve: fails when either error rate is significantly worse there. */
export function reserveVerdict(test: RateCounts, reserve: RateCounts, alpha: number = ALPHA): ReserveVerdict {
  const f2p = worseZTest(test.fail_to_pass_count, test.fail_count, reserve.fail_to_pass_count, reserve.fail_count);
  const p2f = worseZTest(test.pass_to_fail_count, test.pass_count, reserve.pass_to_fail_count, reserve.pass_count);
  const heldUp = f2p.p >= alpha && p2f.p >= alpha;
  return { f2p_z: f2p.z, f2p_p: f2p.p, p2f_z: p2f.z, p2f_p: p2f.p, verdict: heldUp ? 'pass' : 'fail' };
}
