// What a GPU run (scripts/gpu-run/run.sh) brought back, checked: its exported ledger against the
// project's ledger rules (test/helpers/ledger-rules.ts, the rules every copy and export is held
// to), and against what issue 43 asks of a loop on a real card, each reported as met or not yet
// (the checker fails only on the ledger rules: what the code does not do yet is reported).
//   tsx scripts/gpu-run/check.ts <run dir>      (the `run/` folder of gpu-run.tar.xz)
// prints the report and writes <run dir>/check.json; exit 0 when the ledger passes the rules.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseLedger } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow, RunRow } from '../../src/ledger/rows.js';
import { ledgerRuleProblems } from '../../test/helpers/ledger-rules.js';

/** One expectation of issue 43, as the run met it or not. */
export interface Expectation {
  readonly name: string;
  readonly met: boolean;
  readonly detail: string;
}

export interface RunCheck {
  readonly rows: number;
  readonly byType: Record<string, number>;
  /** The ledger rules' problems: [] when the ledger passes. */
  readonly ruleProblems: readonly string[];
  readonly expectations: readonly Expectation[];
  /** Step logs under the run's folder that say a GPU ran out of memory. */
  readonly oomLogs: readonly string[];
}

/** What a stack prints when a GPU allocation fails (PyTorch, JAX), as issue 43 names them. */
const OOM = /OutOfMemoryError|CUDA out of memory|RESOURCE_EXHAUSTED/;

function logFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...logFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.log')) out.push(full);
  }
  return out;
}

const count = <T>(items: readonly T[], test: (item: T) => boolean): number => items.filter(test).length;

/** Issue 43's expectations of the ledger (and the step logs' OOM lines), each met or not yet. */
export function expectationsOf(rows: readonly LedgerRow[], oomLogs: readonly string[], compute: string): Expectation[] {
  const runs = rows.filter((row): row is RunRow => row.type === 'run' && row.status !== 'ensemble');
  const generations = rows.filter((row) => row.type === 'generation').length;
  const teachers = rows.flatMap((row) => (row.type === 'teacher' ? [row] : []));
  const reserves = rows.flatMap((row) => (row.type === 'reserve_check' ? [row] : []));
  const packages = rows.flatMap((row) => (row.type === 'package' ? [row] : []));
  const failed = runs.filter((run) => run.status === 'train_failed');
  const lost = runs.filter((run) => (run.lost_lanes ?? 0) > 0);
  const oomRetried = runs.filter((run) => (run.oom_retries ?? 0) > 0);
  const expectations: Expectation[] = [
    {
      name: 'the loop ran: a generation opened, runs trained, a champion',
      met:
        generations >= 1 &&
        count(runs, (run) => run.status === 'trained') > 0 &&
        rows.some((r) => r.type === 'champion'),
      detail: `${generations} generation(s), ${count(runs, (run) => run.status === 'trained')} of ${runs.length} runs trained`,
    },
    {
      name: 'no run failed (a CUDA OOM is never a failed run)',
      met: failed.length === 0,
      detail:
        failed.length === 0
          ? 'no train_failed row'
          : `train_failed: ${failed.map((run) => `${run.run_id} (rc ${run.train_rc}, ${run.error ?? 'no error'})`).join('; ')}`,
    },
    {
      name: 'no step log says the GPU ran out of memory, or each OOM was waited out (oom_retries)',
      met: oomLogs.length === 0 || (oomRetried.length > 0 && failed.length === 0),
      detail: `${oomLogs.length} step log(s) with an OOM; ${oomRetried.length} run row(s) with oom_retries`,
    },
    {
      name: 'every generation that built a teacher built it (none lost to the preemption)',
      met: teachers.length > 0 && teachers.every((teacher) => teacher.status === 'ok'),
      detail:
        teachers
          .map((teacher) => `g${teacher.generation} ${teacher.status}${teacher.error ? ` (${teacher.error})` : ''}`)
          .join(', ') || 'no teacher row',
    },
    {
      name: 'no reserve check ended in error',
      met: reserves.every((reserve) => reserve.verdict !== 'error'),
      detail:
        reserves.map((reserve) => `g${reserve.generation} ${reserve.status}/${reserve.verdict}`).join(', ') ||
        'no reserve check',
    },
    {
      name: 'the preemption lost no run: each run sent again after a lost lane ended trained',
      met: lost.every((run) => run.status === 'trained'),
      detail:
        lost.map((run) => `${run.run_id} ${run.status} (lost_lanes ${run.lost_lanes})`).join(', ') ||
        'no run with lost_lanes',
    },
    {
      name: 'a champion was packaged',
      met: packages.some((row) => row.event === 'finished' && (row.exit_code ?? 0) === 0 && row.error === undefined),
      detail: `${count(packages, (row) => row.event === 'finished')} package(s) finished of ${count(packages, (row) => row.event === 'launched')} launched`,
    },
  ];
  if (compute === 'cuda')
    expectations.push({
      name: "each trained run's row has the GPU memory its processes held (gpu_peak_mib)",
      met: runs.filter((run) => run.status === 'trained').every((run) => (run.gpu_peak_mib ?? 0) > 0),
      detail: `${count(runs, (run) => (run.gpu_peak_mib ?? 0) > 0)} of ${count(runs, (run) => run.status === 'trained')} trained runs`,
    });
  return expectations;
}

/** Check a run's folder: `ledger/ledger.jsonl`, the step logs under `loop/`. */
export function checkRun(runDir: string, compute = 'cuda'): RunCheck {
  const file = path.join(runDir, 'ledger', 'ledger.jsonl');
  const rows = existsSync(file) ? parseLedger(readFileSync(file, 'utf8'), file).rows : [];
  const byType: Record<string, number> = {};
  for (const row of rows) byType[row.type] = (byType[row.type] ?? 0) + 1;
  const oomLogs = logFiles(path.join(runDir, 'loop'))
    .filter((log) => OOM.test(readFileSync(log, 'utf8')))
    .map((log) => path.relative(runDir, log));
  const ruleProblems = rows.length === 0 ? [`no ledger rows in ${file}`] : ledgerRuleProblems(rows);
  return { rows: rows.length, byType, ruleProblems, expectations: expectationsOf(rows, oomLogs, compute), oomLogs };
}

/** The check as lines of text. */
export function describeCheck(check: RunCheck): string[] {
  const lines = [
    `ledger: ${check.rows} rows ${JSON.stringify(check.byType)}`,
    check.ruleProblems.length === 0
      ? 'ledger rules: pass'
      : `ledger rules: FAIL (${check.ruleProblems.length})\n  ${check.ruleProblems.slice(0, 20).join('\n  ')}`,
    'issue 43 expectations:',
    ...check.expectations.map((e) => `  [${e.met ? 'met' : 'not yet'}] ${e.name}: ${e.detail}`),
  ];
  if (check.oomLogs.length > 0) lines.push(`OOM in: ${check.oomLogs.join(', ')}`);
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runDir = process.argv[2];
  if (runDir === undefined) throw new Error('usage: tsx scripts/gpu-run/check.ts <run dir> [cuda|cpu]');
  const check = checkRun(runDir, process.argv[3] ?? 'cuda');
  writeFileSync(path.join(runDir, 'check.json'), `${JSON.stringify(check, null, 2)}\n`);
  console.log(describeCheck(check).join('\n'));
  process.exitCode = check.ruleProblems.length === 0 ? 0 : 1;
}
