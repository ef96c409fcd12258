import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { championLoop, championLoopAt } from '../client/champion-loop-cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startWorkerProcess } from '../helpers/worker-processes.js';

// Issue 45: workers deployed as production Temporal workers are: the orchestrator's workflow
// bundle written ahead of time (`champion-loop bundle --out FILE`) and an orchestrator started
// from it (`worker orchestrator --workflow-bundle FILE`), no webpack where it runs. Every worker
// process of the other tests starts from such a bundle too (test/helpers/worker-processes.ts);
// here the command itself, the flag's refusals, and one orchestrator each way.

describe('a workflow bundle built ahead of time', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer();
    dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-prebuilt-'));
  });

  afterAll(async () => {
    await server?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it("'bundle --out' writes it and says its build id and how to start an orchestrator from it; the orchestrator runs it", async () => {
    const file = path.join(dir, 'workflows.js');
    const bundled = await championLoop(['bundle', '--out', file], { timeout: 120_000 });
    expect(bundled.exitCode, String(bundled.stderr)).toBe(0);
    expect(bundled.stdout).toMatch(
      new RegExp(
        `^wrote ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(\\d+\\.\\d MiB; with Worker Versioning its build id is [0-9a-f]{12}\\): ` +
          `start an orchestrator from it with 'champion-loop worker orchestrator --workflow-bundle `,
      ),
    );
    expect(await readFile(file, 'utf8')).toContain('__TEMPORAL__');

    const prebuilt = await startWorkerProcess({ kind: 'orchestrator' }, { ...server, workflowBundle: file });
    const bundling = await startWorkerProcess({ kind: 'orchestrator' }, { ...server, workflowBundle: null });
    try {
      expect(prebuilt.output()).toContain(`orchestrator (workflows of the bundle ${file}, CPU activities)`);
      expect(bundling.output()).toContain('orchestrator (workflows, CPU activities)');
    } finally {
      for (const worker of [prebuilt, bundling]) {
        worker.signal('SIGTERM');
        await worker.exited;
      }
    }
  }, 180_000);

  it('--workflow-bundle refuses a missing file, a file that is no bundle, and a worker that is not the orchestrator, before it connects', async () => {
    const missing = await championLoopAt(server, [
      'worker',
      'orchestrator',
      '--workflow-bundle',
      path.join(dir, 'nothing.js'),
    ]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(
      `--workflow-bundle ${path.join(dir, 'nothing.js')}: no such file; build one with 'champion-loop bundle --out FILE'`,
    );
    const other = path.join(dir, 'other.js');
    await writeFile(other, 'console.log("not workflows")\n');
    const notBundle = await championLoopAt(server, ['worker', 'orchestrator', '--workflow-bundle', other]);
    expect(notBundle.exitCode).toBe(1);
    expect(notBundle.stderr).toContain(`--workflow-bundle ${other} is not a workflow bundle`);
    const lane = await championLoopAt(server, ['worker', 'gpu', '--cpu', '--device', '0', '--workflow-bundle', other]);
    expect(lane.exitCode).toBe(1);
    expect(lane.stderr).toContain('--workflow-bundle is for the orchestrator, not the gpu worker');
  });
});
