import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { championLoop } from '../client/champion-loop-cli.js';
import { STACK_FRAME } from '../helpers/files-and-errors.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 26: `worker gpu --config loop.yaml` takes the lane's slots, min_free_gib and overtaking from loop.yaml,
// refuses flags that disagree, and says at start how it admits jobs (with a fake nvidia-smi).

const BIN = path.resolve('bin/champion-loop.js');

describe('worker gpu --config loop.yaml', () => {
  let server: TestServer;
  let dir: string;
  let loopFile: string;

  beforeAll(async () => {
    server = await startTestServer();
    dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-lane-capacity-'));
    await mkdir(path.join(dir, 'data'));
    await writeFile(path.join(dir, 'candidates.yaml'), stringify({ candidates: [] }));
    loopFile = path.join(dir, 'loop.yaml');
    await writeFile(
      loopFile,
      stringify({
        data_root: 'data',
        candidates: 'candidates.yaml',
        min_free_gib: 30,
        lanes: [
          { host: 'box', device: 0, slots: 2, min_free_gib: 40, overtaking: 8 },
          { host: 'box', device: 1 },
        ],
      }),
    );
  }, 120_000);

  /** `worker gpu --config loop.yaml` of lane box/`device`, with `PATH` (where nvidia-smi is, or not). */
  function startLane(device: number, PATH: string): { output: () => string; stop: () => Promise<unknown> } {
    const args = ['worker', 'gpu', '--config', loopFile, '--host', 'box', '--device', String(device)];
    const connection = ['--address', server.address, '--namespace', server.namespace];
    const worker = execa(process.execPath, [BIN, ...args, ...connection], { reject: false, all: true, env: { PATH } });
    let output = '';
    worker.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return {
      output: () => output,
      stop: async () => {
        worker.kill('SIGTERM');
        return worker;
      },
    };
  }

  afterAll(async () => {
    await server?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses flags that disagree with the lane in loop.yaml before it connects, naming both values', async () => {
    const refused = await championLoop([
      'worker',
      'gpu',
      '--config',
      loopFile,
      '--host',
      'box',
      '--device',
      '0',
      '--slots',
      '4',
      '--address',
      '127.0.0.1:1',
    ]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `the worker's flags disagree with ${loopFile} lanes[0] (host box, device 0): --slots 4 but slots 2`,
    );
    expect(refused.stderr).not.toMatch(STACK_FRAME);
    const overtaking = await championLoop(
      ['worker', 'gpu', '--config', loopFile, '--host', 'box', '--device', '0', '--overtaking', '3'].concat([
        '--address',
        '127.0.0.1:1',
      ]),
    );
    expect(overtaking.exitCode).toBe(1);
    expect(overtaking.stderr).toContain('--overtaking 3 but overtaking 8');
  });

  it("admits by loop.yaml's min_free_gib: with 35 GiB free and 40 needed it waits and says so", async () => {
    const bin = path.join(dir, 'bin');
    await mkdir(bin, { recursive: true });
    const smi = path.join(bin, 'nvidia-smi');
    // A device with 35 GiB (35,840 MiB) of 80 GiB free.
    await writeFile(smi, '#!/bin/sh\necho "0, 81920, 46080, 35840"\n');
    await chmod(smi, 0o755);
    const lane = startLane(0, `${bin}:/usr/bin:/bin`);
    try {
      await expect
        .poll(lane.output, { timeout: 60_000, interval: 250 })
        .toContain('waiting for GPU memory: device 0 has 35.0 GiB free, a job needs 40 GiB');
      expect(lane.output()).toContain(
        `GPU lane champion-loop.box.gpu0: device 0 has 35.0 of 80.0 GiB free; it takes a job while 40 GiB is free beyond what its running jobs hold, up to 2 jobs at once; up to 8 later steps may start before one that waits for memory (capacity from ${loopFile} lanes[0] (host box, device 0))`,
      );
    } finally {
      await lane.stop();
    }
  });

  it('says a GPU lane on a box without nvidia-smi has no memory guard', async () => {
    const empty = path.join(dir, 'empty-bin');
    await mkdir(empty, { recursive: true });
    const lane = startLane(1, empty);
    try {
      await expect
        .poll(lane.output, { timeout: 60_000, interval: 250 })
        .toContain(
          'GPU lane champion-loop.box.gpu1: nvidia-smi not found: no memory guard, it admits by slots alone, up to 1 job at once',
        );
    } finally {
      await lane.stop();
    }
  });
});
