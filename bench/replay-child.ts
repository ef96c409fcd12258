// A fresh process that replays recorded generation histories with the orchestrator's real
// workflow bundle, as a new orchestrator worker does when it takes over a running generation
// (no sticky cache: the whole current run is replayed). Prints one JSON line: times and memory.
// With --prefixes, the first history is then also replayed cut after the workflow task nearest
// to 25, 50, 75 and 100% of its events: the slope is the cost per event, the rest fixed cost.
// Usage: node --import tsx bench/replay-child.ts [--prefixes] BUNDLE.js HISTORY.pb...
// (HISTORY.pb: temporal.api.history.v1.History, protobuf binary)
import { readFile } from 'node:fs/promises';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { processMemory } from './lib/context.js';

type History = proto.temporal.api.history.v1.IHistory;
const TASK_COMPLETED = proto.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED;

Runtime.install({ logger: new DefaultLogger('WARN') });
const args = process.argv.slice(2);
const prefixes = args[0] === '--prefixes';
const [bundleFile, ...historyFiles] = prefixes ? args.slice(1) : args;
if (!bundleFile || historyFiles.length === 0) {
  console.error('usage: replay-child.ts [--prefixes] BUNDLE.js HISTORY.pb...');
  process.exit(2);
}
const atStart = await processMemory('self');
const code = await readFile(bundleFile, 'utf8');

async function replay(history: History): Promise<number> {
  const start = performance.now();
  await Worker.runReplayHistory({ workflowBundle: { code } }, history, 'champion-loop/replay');
  return performance.now() - start;
}

const replays: { file: string; events: number; readMs: number; replayMs: number }[] = [];
const histories: History[] = [];
for (const file of historyFiles) {
  const readStart = performance.now();
  const history = proto.temporal.api.history.v1.History.decode(await readFile(file));
  histories.push(history);
  const readMs = performance.now() - readStart;
  replays.push({ file, events: history.events?.length ?? 0, readMs, replayMs: await replay(history) });
}
const afterReplays = await processMemory('self');

const cuts: { events: number; replayMs: number }[] = [];
const first = histories[0]?.events ?? [];
if (prefixes && first.length > 0) {
  const ends = first.flatMap((event, index) => (event.eventType === TASK_COMPLETED ? [index + 1] : []));
  for (const fraction of [0.25, 0.5, 0.75, 1]) {
    const want = first.length * fraction;
    const end =
      fraction === 1
        ? first.length
        : ends.reduce((best, e) => (Math.abs(e - want) < Math.abs(best - want) ? e : best), ends[0] ?? first.length);
    cuts.push({ events: end, replayMs: await replay({ events: first.slice(0, end) }) });
  }
}
const atEnd = await processMemory('self');
console.log(
  JSON.stringify({
    replays,
    cuts,
    rssAtStartMiB: atStart?.rssMiB ?? null,
    rssAfterReplaysMiB: afterReplays?.rssMiB ?? null,
    peakAfterReplaysMiB: afterReplays?.hwmMiB ?? null,
    peakRssMiB: atEnd?.hwmMiB ?? null,
    heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20,
  }),
);
process.exit(0);
