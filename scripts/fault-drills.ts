// `npm run fault-drills`: the fault drills of issue #7, longer than CI affords. Runs the random
// faults drill (test/reliability/drills/) and every reliability test (test/reliability/) against
// real dev servers, worker processes and subprocesses, and writes what each printed (faults
// injected, rows compared, timings) with the outcome to test/reliability/last-drill-output.txt.
// FAULTS=N sets the drill's number of faults (default 10), FAULT_SEED=N repeats a drill.
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../src/devserver/project-root.js';

const OUTPUT = path.join(PROJECT_ROOT, 'test', 'reliability', 'last-drill-output.txt');
const started = new Date();
const run = execa(
  'npx',
  ['vitest', 'run', '--config', 'test/reliability/vitest.drills.config.ts', '--reporter', 'verbose'],
  {
    cwd: PROJECT_ROOT,
    all: true,
    reject: false,
    env: { FORCE_COLOR: '0', NO_COLOR: '1' },
  },
);
run.all?.pipe(process.stdout);
const result = await run;
const lines = (result.all ?? '').split('\n');
// What the drills and tests printed about themselves, and vitest's verdict per test and overall.
const printed = lines.filter(
  (line) =>
    /\d+ faults? injected|: .* after \d+ ms|^random faults|ms after|lived|^\s+generation \d+ /.test(line) &&
    !line.includes('[WARN]'),
);
const verdicts = lines.filter((line) => /^\s*[✓×↓] /.test(line) || /^\s*(Test Files|Tests|Duration)\s/.test(line));
const seconds = Math.round((Date.now() - started.getTime()) / 1000);
await writeFile(
  OUTPUT,
  [
    `# npm run fault-drills, ${started.toISOString()} (${seconds} s; ${cpus().length} cores, Node ${process.version}; exit ${result.exitCode})`,
    '',
    '## What each drill and test printed',
    ...printed.map((line) => line.trimEnd()),
    '',
    '## Outcome',
    ...verdicts.map((line) => line.trimEnd()),
    '',
  ].join('\n'),
);
console.log(`\nfault drills: exit ${result.exitCode}; summary in ${path.relative(PROJECT_ROOT, OUTPUT)}`);
process.exitCode = result.exitCode ?? 1;
