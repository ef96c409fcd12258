// Issue 43 on a simulated card (examples/python-gate `device: sim`, its stand-in nvidia-smi): a
// GPU lane that never fails a step for memory it admitted. The card is one accounted pool under a
// lock that every step process allocates from, and that fails an allocation past its size with
// PyTorch's own CUDA out-of-memory text, as the real H200 did (test/fixtures/sim-gpu/).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { readGpuMemory } from '../../src/workers/gpu-memory.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { ledgerUntil, rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { pythonStackUnavailable, simCardStack } from '../helpers/python-stack.js';

const unavailable = pythonStackUnavailable();
if (unavailable !== null) console.warn(unavailable);

/** A card of 60 GiB: one 45 GiB candidate fits at a time, three do not. */
const CARD_MIB = 60 * 1024;

describe.skipIf(unavailable !== null)('a GPU lane on a simulated card', () => {
  let harness: LoopHarness;
  let dir = '';
  let config: LoopConfig;
  let card = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-card-'));
    const simCard = await simCardStack(dir, CARD_MIB);
    const root = simCard.stack;
    card = simCard.card;
    // The lane's nvidia-smi and every step's allocations are the card's (this test file's own process).
    process.env.CHAMPION_LOOP_SIM_GPU = card;
    process.env.PATH = simCard.path;
    harness = await createLoopHarness({
      candidates: [{ name: 'unused' }],
      lanes: 1,
      gpu: { read: () => readGpuMemory(0), pollMs: 200 },
    });
    const loaded = await loadLoopConfig(join(root, 'loop.yaml'));
    const candidates = join(root, 'sim-candidates.yaml');
    const sim = (gib: number, extra = '') =>
      `{device: sim, gpu_ballast_gib: ${gib}, epoch_sleep_s: 0.5${extra === '' ? '' : `, ${extra}`}}`;
    await harness.writeCandidates(
      'candidates:\n' +
        `  - {name: strict, base_config: configs/base.yaml, overrides: ${sim(45, 'class_weight_fail: 3.0')}}\n` +
        `  - {name: base, base_config: configs/base.yaml, overrides: ${sim(8)}}\n` +
        `  - {name: tiny, base_config: configs/base.yaml, overrides: ${sim(4, 'features: 5')}}\n`,
      candidates,
    );
    // Every job is admitted by the lane's 4 GiB until its candidate is learned: three 45 GiB
    // trainings start side by side on a 60 GiB card, and all but one run out of memory.
    config = {
      ...loaded,
      candidates,
      parallel: 4,
      min_free_gib: 4,
      saturation_evals: 8,
      max_reserve_checks: 1,
      teacher_after_round: 0,
      lanes: (harness.config.lanes ?? []).map((lane) => ({ ...lane, slots: 4, min_free_gib: 4 })),
    };
  });

  afterAll(async () => {
    await harness?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("waits out every CUDA out-of-memory, its own and an outside process's, and fails no step for it", async () => {
    expect((await harness.startWith('sim', config)).kind).toBe('started');
    // An outside process takes 40 GiB of the card for 15 s while the first round starts.
    const hog = spawn('python3', ['-m', 'pygate.simgpu', 'hog', '--gib', '40', '--seconds', '15'], {
      cwd: join(dir, 'python-gate'),
      stdio: 'ignore',
    });
    const done = (rows: LedgerRow[]) =>
      rowsOf(rows, 'run').filter((row) => row.status === 'trained' && row.candidate === 'strict').length >= 2 &&
      rowsOf(rows, 'reserve_check').length >= 1;
    await ledgerUntil(harness, 'sim', done, 240_000);
    await harness.client.workflow.getHandle(loopWorkflowId('sim')).signal(stopSignal);
    await harness.result('sim');
    hog.kill('SIGKILL');
    const { rows } = await harness.ledger('sim');
    const runs = rowsOf(rows, 'run').filter((row) => row.members === undefined);
    // Nothing failed for memory: every training trained, every evaluation and reserve check is ok.
    expect(runs.map((run) => `${run.run_id}: ${run.status} ${run.error ?? ''}`)).toEqual(
      runs.map((run) => `${run.run_id}: trained `),
    );
    expect(rowsOf(rows, 'eval').filter((row) => row.status !== 'ok')).toEqual([]);
    expect(rowsOf(rows, 'reserve_check').every((check) => check.verdict !== 'error')).toBe(true);
    // It did run out of memory, and waited: the run rows count it, the logs say so.
    const waited = runs.filter((run) => (run.oom_retries ?? 0) > 0);
    expect(waited.length).toBeGreaterThanOrEqual(1);
    const log = await readFile(join(config.state_dir, 'logs', `${waited[0]?.run_id ?? ''}.train.log`), 'utf8');
    expect(log).toMatch(/CUDA out of memory/);
    expect(log).toMatch(/train: out of GPU memory \(.*\); waiting for \d+\.\d GiB/);
    // Its GPU time is every run's it had, and the reserve check was admitted by the candidate's own need.
    const reserved = rowsOf(rows, 'dispatch').find((row) => row.kind === 'ReserveJob' && row.event === 'reserved');
    expect(reserved?.peak_usage.gpu_mib).toBeGreaterThan(4 * 1024);
    console.log(
      `simulated card: ${runs.length} runs, ${waited.length} waited out an OOM (${waited.map((run) => run.oom_retries).join(', ')} times); reserve admitted by ${reserved?.peak_usage.gpu_mib} MiB`,
    );
  });
});
