// A fresh process holding one loop's ledger copy as the orchestrator's keeper does
// (src/ledger-copy/ledger-keeper.ts): it connects, takes a pass over the loop (history read, the
// copy read whole and indexed, state.json written), then a second pass (the steady state: nothing
// new), and prints one JSON line: the passes' times and its memory before and after, each after a
// full garbage collection, so the difference is what holding the copy costs.
// Usage: node --expose-gc --import tsx bench/lib/keeper-child.ts ADDRESS NAMESPACE LOOP_ID
import { connectClient } from '../../src/client/connect.js';
import { LedgerKeeper } from '../../src/ledger-copy/ledger-keeper.js';
import { processMemory } from './context.js';

const [address, namespace, loopId] = process.argv.slice(2);
if (!address || !namespace || !loopId) {
  console.error('usage: keeper-child.ts ADDRESS NAMESPACE LOOP_ID');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
const settle = (): void => {
  gc?.();
  gc?.();
};

const { client, connection } = await connectClient({ address, namespace });
// The connection and the client's first round trip are not the copy's: warm them first.
await client.workflow.getHandle(`champion-loop/${loopId}`).describe();
settle();
const before = await processMemory('self');
const heapBefore = process.memoryUsage().heapUsed;
const keeper = new LedgerKeeper({ client });
let start = performance.now();
const appended = await keeper.syncLoop(loopId);
const firstPassMs = performance.now() - start;
start = performance.now();
await keeper.syncLoop(loopId);
const secondPassMs = performance.now() - start;
settle();
const after = await processMemory('self');
const heapAfter = process.memoryUsage().heapUsed;
console.log(
  JSON.stringify({
    appended,
    firstPassMs,
    secondPassMs,
    rssBeforeMiB: before?.rssMiB ?? null,
    rssAfterMiB: after?.rssMiB ?? null,
    hwmMiB: after?.hwmMiB ?? null,
    heapBeforeMiB: heapBefore / 2 ** 20,
    heapAfterMiB: heapAfter / 2 ** 20,
    gc: gc !== undefined,
  }),
);
await keeper.releaseAll();
await connection.close();
process.exit(0);
