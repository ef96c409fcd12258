// What a process start costs on this machine: the floor under every step's dispatch (the lane's
// activity spawns the step's program directly, leading a process group of its own).
import { execa } from 'execa';
import { summarize, type Summary } from './stats.js';

/**
 * Spawn a node command as a lane's activity spawns a step (detached: a process group of its own)
 * that prints its own start (performance.timeOrigin): ms from the spawn to the command's start.
 */
async function spawnToCommandStart(): Promise<number | null> {
  const spawned = Date.now();
  const result = await execa(process.execPath, ['-e', 'process.stdout.write(String(performance.timeOrigin))'], {
    detached: true,
    stdin: 'ignore',
    cleanup: false,
    reject: false,
  });
  const started = Number(result.stdout.trim().split('\n').pop());
  return Number.isFinite(started) ? started - spawned : null;
}

/** `node -e 0` wall time and spawnToCommandStart, `times` each, one after the other. */
export async function processStartBaseline(times: number): Promise<{ node: Summary; spawnToCommand: Summary }> {
  const node: number[] = [];
  const spawn: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const start = performance.now();
    await execa(process.execPath, ['-e', '0'], { reject: false });
    node.push(performance.now() - start);
    const ms = await spawnToCommandStart();
    if (ms !== null) spawn.push(ms);
  }
  return { node: summarize(node), spawnToCommand: summarize(spawn) };
}

/** spawnToCommandStart every `intervalMs` while a run goes on (the same load as its dispatches); stop for the summary. */
export function sampleSpawnStarts(intervalMs: number): { stop(): Promise<Summary> } {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const ms = await spawnToCommandStart();
      if (ms !== null) samples.push(ms);
      const wait = Date.now() + intervalMs;
      while (running && Date.now() < wait) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return summarize(samples);
    },
  };
}
