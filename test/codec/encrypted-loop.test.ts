import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopDataConverter } from '../../src/codec/data-converter.js';
import { openPayloads } from '../../src/codec/decode-payloads.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { championLoopAt } from '../client/champion-loop-cli.js';
import { copyCaughtUp } from '../helpers/bounded-loop.js';
import { expectEachRunAndEvalOnce, rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { STACK_FRAME } from '../helpers/files-and-errors.js';

// A loop whose client and workers all run with CHAMPION_LOOP_CODEC_KEYS: every payload in its
// history is sealed (a candidate's name is not in them), while the ledger export, the ledger copy
// and status read it as always; a worker started with other keys refuses to start.

const SECRET = 'candidate-7f3a9c';
const KEYS = { CHAMPION_LOOP_CODEC_KEYS: `2026-12:${randomBytes(32).toString('base64')}` };

/**
 * Every payload anywhere in `value` (history events), as found: sealed or not. Search attributes
 * and patch markers are left out: the server indexes the first and the SDK's core writes the
 * second (a patch id, never data), so no codec touches them (docs/operating.md says so).
 */
function payloadsIn(value: unknown, into: Payload[] = []): Payload[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return into;
  const candidate = value as Payload;
  if (candidate.metadata && typeof candidate.metadata === 'object' && 'encoding' in candidate.metadata) {
    into.push(candidate);
    return into;
  }
  const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
  for (const [key, item] of entries) if (key !== 'searchAttributes' && key !== 'patch-data') payloadsIn(item, into);
  return into;
}

const bytesOf = (payloads: readonly Payload[]): Buffer =>
  Buffer.concat(
    payloads.flatMap((payload) => [
      Buffer.from(payload.data ?? []),
      ...Object.values(payload.metadata ?? {}).map((bytes) => Buffer.from(bytes)),
    ]),
  );

async function rawEvents(client: Client, loopId: string): Promise<proto.temporal.api.history.v1.IHistoryEvent[]> {
  const events: proto.temporal.api.history.v1.IHistoryEvent[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${loopWorkflowId(loopId)}'` })) {
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: loopWorkflowId(loopId), runId: run.runId },
    });
    events.push(...(history?.events ?? []));
  }
  return events;
}

describe('a loop with payload encryption', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: SECRET, overrides: { fixture_quality: 0.9 } }, { name: 'plain-b' }],
      lanes: 1,
      dataConverter: loopDataConverter(KEYS),
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('keeps every payload of its history sealed, and its ledger reads as always', async () => {
    const loopId = 'sealed';
    await harness.startWith(loopId, {});
    await harness.waitFor(loopId, (view) => view.champion !== null && view.test_evals >= 2);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await harness.result(loopId);

    const events = await rawEvents(harness.client, loopId);
    const sealed = payloadsIn(events);
    expect(sealed.length).toBeGreaterThan(10);
    const encodings = new Set(sealed.map((payload) => Buffer.from(payload.metadata?.encoding ?? []).toString()));
    expect([...encodings]).toEqual(['binary/encrypted']);
    expect(bytesOf(sealed).includes(SECRET)).toBe(false);
    // The same events opened with the loop's keys hold the name: the search above could find it.
    const opened = payloadsIn(await openPayloads(harness.client, events));
    expect(bytesOf(opened).includes(SECRET)).toBe(true);

    // The ledger from history and the ledger copy in the state dir are plaintext files as always.
    const { rows } = await harness.ledger(loopId);
    expect(rowsOf(rows, 'run').some((row) => row.candidate === SECRET)).toBe(true);
    expectEachRunAndEvalOnce(rows, loopId);
    const config = harness.configFor(loopId, {});
    await copyCaughtUp(harness, loopId, config.state_dir);
    expect(await readFile(path.join(config.state_dir, 'ledger.jsonl'), 'utf8')).toContain(SECRET);
  });

  it('refuses a worker whose keys cannot open the running loop, naming what to set', async () => {
    const loopId = 'sealed-running';
    await harness.startWith(loopId, {});
    await harness.waitFor(loopId, (view) => view.round >= 1);
    const worker = (env: Record<string, string>) =>
      championLoopAt(harness.server, ['worker', 'package'], {
        env: { CHAMPION_LOOP_CODEC_KEYS: '', ...env },
        timeout: 60_000,
      });
    const wrong = await worker({ CHAMPION_LOOP_CODEC_KEYS: `2026-12:${randomBytes(32).toString('base64')}` });
    expect(wrong.exitCode).not.toBe(0);
    expect(wrong.stderr).toMatch(
      /champion-loop\/sealed-running's history does not open with this process's codec keys: .*key '2026-12'/,
    );
    const none = await worker({});
    expect(none.exitCode).not.toBe(0);
    expect(none.stderr).toMatch(
      /history is encrypted \(key '2026-12'\) and this process has no codec key: set CHAMPION_LOOP_CODEC_KEYS/,
    );
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await harness.result(loopId);
  });

  it('every command run without the key says the payloads are encrypted and which variable gives the key (issue 48)', async () => {
    const loopId = 'sealed-cli';
    await harness.startWith(loopId, {});
    await harness.waitFor(loopId, (view) => view.round >= 1);
    const out = await mkdtemp(path.join(tmpdir(), 'champion-loop-nokey-'));
    try {
      for (const args of [
        ['status', loopId],
        ['status', loopId, '--json'],
        ['ledger', loopId, '--out', out],
        ['report', loopId, '--out', path.join(out, 'report.html')],
      ]) {
        const run = await championLoopAt(harness.server, args, { env: { CHAMPION_LOOP_CODEC_KEYS: '' } });
        const said = `champion-loop ${args.join(' ')}: ${String(run.stderr)}`;
        expect(run.exitCode, said).not.toBe(0);
        expect(run.stderr, said).toContain(
          "this loop's payloads are encrypted (key '2026-12') and this process has no codec key: set CHAMPION_LOOP_CODEC_KEYS or CHAMPION_LOOP_CODEC_KEY_FILE",
        );
        expect(run.stderr, said).not.toMatch(STACK_FRAME);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await harness.result(loopId);
  });
});
