// A fresh orchestrator worker process for the takeover measure: the real createOrchestratorWorker
// with the bench's own workflow bundle (the one the previous worker ran, so source edits made
// meanwhile cannot pass for nondeterminism). Prints "connected to ..." once it polls.
// Usage: node --import tsx bench/orchestrator-child.ts ADDRESS NAMESPACE BUNDLE.js
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createOrchestratorWorker, runOrchestrator } from '../src/workers/orchestrator-worker.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
const [address, namespace, codePath] = process.argv.slice(2);
if (!address || !namespace || !codePath) {
  console.error('usage: orchestrator-child.ts ADDRESS NAMESPACE BUNDLE.js');
  process.exit(2);
}
const connection = await NativeConnection.connect({ address });
const worker = await createOrchestratorWorker({ connection, namespace, workflowBundle: { codePath } });
process.once('SIGTERM', () => worker.shutdown());
console.log(`orchestrator connected to ${address}`);
await runOrchestrator(worker, connection, namespace);
await connection.close();
