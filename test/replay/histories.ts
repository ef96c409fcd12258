import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { generation, packaging } from '../../src/workflows/index.js';

/** Where recorded histories live: one JSON file per workflow run, committed. */
export const HISTORIES_DIR = fileURLToPath(new URL('./histories/', import.meta.url));

/** A recorded run: which workflow, of which scenario, and its full history. */
export interface RecordedHistory {
  readonly scenario: string;
  readonly workflowId: string;
  readonly workflowType: string;
  readonly history: History;
  /** The file it was loaded from (loadHistories). */
  readonly file: string;
}

const fileName = (scenario: string, workflowId: string, runIndex: number) =>
  `${scenario}--${workflowId.replace(/^champion-loop\//, '').replace(/[^A-Za-z0-9.-]+/g, '_')}--${runIndex}.json`;

/**
 * Record every run of every workflow of a namespace (a scenario's loop), at most `perType`
 * executions of each child type, so the set stays small but covers every workflow.
 */
export async function recordScenario(client: Client, scenario: string, perType = 2): Promise<string[]> {
  const executions: { workflowId: string; runId: string; type: string; start: number }[] = [];
  for await (const execution of client.workflow.list()) {
    executions.push({
      workflowId: execution.workflowId,
      runId: execution.runId,
      type: execution.type,
      start: execution.startTime.getTime(),
    });
  }
  executions.sort((a, b) => a.start - b.start);
  const kept = new Map<string, number>();
  const runIndex = new Map<string, number>();
  const written: string[] = [];
  for (const execution of executions) {
    const loopLevel = execution.type === generation.name || execution.type === packaging.name;
    const seen = kept.get(execution.type) ?? 0;
    if (!loopLevel && seen >= perType) continue;
    kept.set(execution.type, seen + 1);
    const index = runIndex.get(execution.workflowId) ?? 0;
    runIndex.set(execution.workflowId, index + 1);
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    const file = path.join(HISTORIES_DIR, fileName(scenario, execution.workflowId, index));
    await writeFile(
      file,
      `${JSON.stringify({ scenario, workflowId: execution.workflowId, workflowType: execution.type, history: JSON.parse(historyToJSON(history)) as unknown }, null, 1)}\n`,
    );
    written.push(file);
  }
  return written;
}

async function jsonFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.filter((entry) => entry.isDirectory()).map((entry) => jsonFiles(path.join(dir, entry.name))),
  );
  const own = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => path.join(dir, entry.name));
  return [...own, ...nested.flat()].sort();
}

/**
 * The folders replayed: the recorder's (baseline code), and `kept/before-<change-id>` of a patch
 * still open (none since the baseline; docs/development.md, "Changing workflow code").
 */
const REPLAYED: readonly string[] = [''];

/**
 * Committed histories. `replayed`: those today's workflow code replays (REPLAYED). `kept`: the
 * others, of code from before the baseline
 * (`kept/before-<change-id>/`: recorded before that change; the recorder leaves them alone),
 * which the ledger export still reads but the workflows no longer run (such a loop is stopped and
 * started again, docs/development.md). `all`: both.
 */
export async function loadHistories(which: 'all' | 'replayed' | 'kept' = 'all'): Promise<RecordedHistory[]> {
  const all = await jsonFiles(HISTORIES_DIR);
  const replayed = (file: string) => REPLAYED.includes(path.relative(HISTORIES_DIR, path.dirname(file)));
  const files = which === 'all' ? all : all.filter((file) => replayed(file) === (which === 'replayed'));
  return Promise.all(
    files.map(async (file) => {
      const data = JSON.parse(await readFile(file, 'utf8')) as Omit<RecordedHistory, 'history' | 'file'> & {
        history: unknown;
      };
      return { ...data, history: historyFromJSON(data.history), file };
    }),
  );
}
