// The orchestrator's keeper at a growth size: its start and memory in a process of its own, and
// the cost of its steady pass in this one.
import path from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../../src/devserver/project-root.js';
import type { LedgerRow } from '../../../src/ledger/rows.js';
import { appendLedgerRows } from '../../../src/ledger-copy/copy-files.js';
import { heldRows, rowsAfter, type CheckedHistory } from '../../../src/ledger-copy/copy-check.js';
import type { BenchServer } from '../../lib/server.js';
import { percentile, timed } from '../../lib/stats.js';
import { BATCH, PASSES } from './size-result.js';

/** The JSON line bench/lib/keeper-child.ts prints. */
export interface KeeperChildOut {
  readonly appended: number;
  readonly firstPassMs: number;
  readonly rssBeforeMiB: number | null;
  readonly rssAfterMiB: number | null;
  readonly heapBeforeMiB: number;
  readonly heapAfterMiB: number;
}

/** The orchestrator's keeper in a process of its own: start (read and index the copy), its memory. */
export async function keeperChild(server: BenchServer, loopId: string): Promise<KeeperChildOut> {
  const child = await execa(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      path.join(PROJECT_ROOT, 'bench', 'lib', 'keeper-child.ts'),
      server.address,
      server.namespace,
      loopId,
    ],
    { cwd: PROJECT_ROOT, reject: false, timeout: 300_000 },
  );
  if (child.exitCode !== 0) throw new Error(`keeper child exited ${child.exitCode}: ${child.stderr.slice(-1500)}`);
  return JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as KeeperChildOut;
}

/**
 * The keeper's steady pass, in-process: history grew by a batch; the rows past those the copy
 * holds are appended flushed. The median of PASSES passes over `tail`, in ms.
 */
export async function keeperPassMs(stateDir: string, tail: readonly LedgerRow[]): Promise<number> {
  let held = { generation: 0, packaging: 0 };
  const passes: number[] = [];
  for (let pass = 0; pass < PASSES; pass += 1) {
    const history: CheckedHistory = {
      generation: { rows: tail.slice(0, (pass + 1) * BATCH), abandoned: [] },
      packaging: { rows: [], abandoned: [] },
    };
    const { ms } = await timed(async () => {
      await appendLedgerRows(stateDir, rowsAfter(history, held));
      held = heldRows(history);
    });
    passes.push(ms);
  }
  return percentile(passes, 50);
}
