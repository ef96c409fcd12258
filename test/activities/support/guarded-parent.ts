// A stand-in worker for the group reaper tests: runs one step with runStep, prints the step's
// pids and its reaper's as one JSON line once it runs, and waits to be killed. Run: node --import tsx THIS LOG CMD...
import process from 'node:process';
import { reaperPid } from '../../../src/activities/support/group-reaper.js';
import { runStep } from '../../../src/activities/support/subprocess.js';

const [log, ...command] = process.argv.slice(2);
if (log === undefined) {
  throw new Error('usage: guarded-parent.ts LOG COMMAND...');
}
await runStep({
  step: 'guarded',
  command,
  cwd: process.cwd(),
  log,
  onStart: (processes) => process.stdout.write(`${JSON.stringify({ ...processes, reaper: reaperPid() })}\n`),
});
