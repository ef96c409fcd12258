import { spawn } from 'node:child_process';
import process from 'node:process';
import { describe, expect, it } from 'vitest';
import { killMarked, STEP_MARK, stepMarkOf } from '../../../src/activities/support/step-survivors.mjs';

// The step's processes are found by their mark. Members of the step's own process group are the
// group's SIGKILL's to end: on a busy box they can still be there an instant after it was sent,
// and were then named "left running outside its process group" (seen in a full run on 2 busy cores).

function markedGroup(mark: string): Promise<number> {
  const child = spawn('sh', ['-c', 'sleep 30 & sleep 30 & wait'], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, [STEP_MARK]: mark },
  });
  child.unref();
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child.pid as number));
    child.once('error', reject);
  });
}

describe('killMarked', () => {
  it("leaves out the members of the step's own group, and kills marked processes outside it", async () => {
    const mark = `survivors-test.${process.pid}.${Date.now()}`;
    const pgid = await markedGroup(mark);
    try {
      // The shell and both sleeps carry the mark once they run.
      await expect.poll(() => stepMarkOf(pgid), { timeout: 5_000 }).toBe(mark);
      expect(killMarked(mark, pgid)).toEqual([]);
      expect(stepMarkOf(pgid)).toBe(mark);
      // Seen from outside the group (the reaper, after the worker died), they are all survivors.
      const killed = killMarked(mark);
      expect(killed.map((entry) => entry.pid)).toContain(pgid);
      expect(killed.length).toBeGreaterThanOrEqual(1);
    } finally {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });
});
