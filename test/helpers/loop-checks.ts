import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Client, WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { expect, inject, vi } from 'vitest';
import { packagingWorkflowId } from '../../src/workflows/ids.js';
import { packagingQuery } from '../../src/workflows/messages.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { rowTime } from '../../src/ledger/ledger-lines.js';
import type { EvalRow } from '../../src/rules/types.js';
import type { LoopView } from '../../src/workflows/loop-view.js';
import type { TestServer } from './test-server.js';

/** The ledger rows of one type, typed. */
export function rowsOf<T extends LedgerRow['type']>(
  rows: readonly LedgerRow[],
  type: T,
): Extract<LedgerRow, { type: T }>[] {
  return rows.filter((row): row is Extract<LedgerRow, { type: T }> => row.type === type);
}

/** An eval row's identity: run, checkpoint and role (times and paths differ between loops). */
export function evalKey(row: Pick<EvalRow, 'run_id' | 'checkpoint_name' | 'role'>): string {
  return `${row.run_id}/${row.checkpoint_name}/${row.role}`;
}

/** No run and no eval (run, checkpoint, role) recorded twice in a ledger. */
export function expectEachRunAndEvalOnce(rows: readonly LedgerRow[], label: string): void {
  const runIds = rowsOf(rows, 'run').map((row) => row.run_id);
  expect(new Set(runIds).size, `${label}: a run recorded twice`).toBe(runIds.length);
  const evals = rowsOf(rows, 'eval').map(evalKey);
  expect(new Set(evals).size, `${label}: an eval recorded twice`).toBe(evals.length);
}

const STATE_KEYS = [
  'generation',
  'split',
  'champion',
  'pareto_set',
  'test_evals',
  'tests_since_reserve_check',
  'reserve_checks',
  'advance_reason',
] as const;

/** The state.json fields that must match between two states (not `updated`, the time of writing). */
export function stateOf(state: object): Record<string, unknown> {
  return Object.fromEntries(STATE_KEYS.map((key) => [key, (state as Record<string, unknown>)[key]]));
}

/** The latest time of any row (ISO times order as text). */
export function newestRowTime(rows: readonly LedgerRow[]): string {
  return rows.map(rowTime).reduce((latest, time) => (time > latest ? time : latest), '');
}

/** Run the official `temporal` CLI against a test server; never throws, the result says how it ended. */
export function temporalCli(server: Pick<TestServer, 'address' | 'namespace'>, args: readonly string[]) {
  return execa(inject('temporalCli'), [...args, '--address', server.address, '--namespace', server.namespace], {
    reject: false,
  });
}

/** `temporal workflow signal` to a loop's generation workflow, as an operator types it. */
export async function signalWithCli(
  server: Pick<TestServer, 'address' | 'namespace'>,
  loopId: string,
  name: string,
  input?: string,
): Promise<void> {
  const result = await temporalCli(server, [
    'workflow',
    'signal',
    '--workflow-id',
    `champion-loop/${loopId}`,
    '--name',
    name,
    ...(input === undefined ? [] : ['--input', input]),
  ]);
  if (result.exitCode !== 0)
    throw new Error(`temporal workflow signal ${name} failed (${result.exitCode}): ${result.stderr}`);
}

const BIN = fileURLToPath(new URL('../../bin/champion-loop.js', import.meta.url));

/** Run `champion-loop` (bin/champion-loop.js) against a test server; never throws. */
export function championLoopCli(server: Pick<TestServer, 'address' | 'namespace'>, args: readonly string[]) {
  return execa(process.execPath, [BIN, ...args, '--address', server.address, '--namespace', server.namespace], {
    reject: false,
  });
}

/** Live processes (not this one) whose command line mentions `text`: a loop's temp dir, a script name. */
export async function processesMentioning(text: string): Promise<{ pid: number; cmdline: string }[]> {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ').trim();
      // A zombie has an empty command line and runs nothing.
      if (cmdline === '') continue;
    } catch {
      continue;
    }
    if (cmdline.includes(text)) found.push({ pid, cmdline });
  }
  return found;
}

/** The parts of a loop's view that say where it stands, for a timed-out wait. */
function describeView(view: LoopView | undefined): string {
  if (!view) return 'no answer to the state query';
  const {
    generation,
    round,
    queued,
    in_flight,
    lanes,
    stopping,
    idle,
    split_error,
    candidates_error,
    test_evals,
    failing,
  } = view;
  return JSON.stringify({
    generation,
    round,
    test_evals,
    queued,
    stopping,
    idle,
    split_error,
    candidates_error,
    failing,
    in_flight,
    lanes,
  });
}

/** Ask for a loop's state until `done` holds (an unanswered query keeps the last answer); a timeout says where it stood. */
export async function waitForView(
  loopId: string,
  query: () => Promise<LoopView>,
  done: (view: LoopView) => boolean,
  timeoutMs = 90_000,
): Promise<LoopView> {
  const deadline = Date.now() + timeoutMs;
  let last: LoopView | undefined;
  while (Date.now() < deadline) {
    last = await query().catch(() => last);
    if (last && done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for loop ${loopId}; last state: ${describeView(last)}`);
}

/** Poll a loop's ledger until `done` holds; a timeout names the row types it had. */
export async function ledgerUntil(
  driver: { ledger(loopId: string): Promise<{ readonly rows: LedgerRow[] }> },
  loopId: string,
  done: (rows: LedgerRow[]) => boolean,
  timeoutMs: number,
): Promise<LedgerRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await driver.ledger(loopId);
    if (done(rows)) return rows;
    if (Date.now() > deadline) {
      const kinds = rows.map((row) => ('candidate' in row ? `${row.type}:${row.candidate}` : row.type));
      throw new Error(`loop ${loopId} did not get there in time; its rows: ${kinds.join(' ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Waits until the loop's packaging workflow has nothing running or queued (its step's files then settled too). */
export async function packagingIdle(client: Client, loopId: string): Promise<void> {
  const handle = client.workflow.getHandle(packagingWorkflowId(loopId));
  await vi.waitFor(
    async () => {
      const view = await handle.query(packagingQuery).catch((error: unknown) => String(error));
      if (typeof view === 'string' || view.running !== null || view.queued !== null)
        throw new Error(`packaging did not settle: ${JSON.stringify(view)}`);
    },
    { timeout: 60_000, interval: 250 },
  );
}

/**
 * Until the workflow has handled the last `signalName` it was sent: a workflow task completed
 * after that signal in its current run's history (not a guessed wait).
 */
export async function signalHandled(handle: WorkflowHandle, signalName: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        const signalled = events.findLastIndex(
          (event) => event.workflowExecutionSignaledEventAttributes?.signalName === signalName,
        );
        return signalled >= 0 && events.slice(signalled).some((event) => event.workflowTaskCompletedEventAttributes);
      },
      { timeout: 60_000, interval: 250, message: `the workflow handled its ${signalName} signal` },
    )
    .toBe(true);
}

/**
 * Waits until the server holds a training run's `trainRun` paused, its attempt ended on the lane
 * (PAUSED, not PAUSE_REQUESTED while it still ran), and says which attempt that was.
 */
export async function trainingPausedOnServer(child: WorkflowHandle): Promise<number | null | undefined> {
  const { PendingActivityState } = proto.temporal.api.enums.v1;
  let attempt: number | null | undefined;
  await vi.waitFor(
    async () => {
      const [activity] = (await child.describe()).raw.pendingActivities ?? [];
      expect(activity?.activityType?.name).toBe('trainRun');
      expect(activity?.paused).toBe(true);
      expect(activity?.state).toBe(PendingActivityState.PENDING_ACTIVITY_STATE_PAUSED);
      attempt = activity?.attempt;
    },
    { timeout: 60_000, interval: 200 },
  );
  return attempt;
}
