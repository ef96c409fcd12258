// What a process start costs on this machine: the floor under every step's dispatch (the lane's
// activity starts the process guard, a node process, which starts the step's program).
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { summarize, type Summary } from './stats.js';

const GUARD = fileURLToPath(new URL('../../src/activities/process-guard.mjs', import.meta.url));

/**
 * Spawn the process guard as a lane's activity does (detached, stdin held open) with a node
 * command that prints its own start (performance.timeOrigin): ms from spawn to command start.
 */
export async function guardToCommandStart(): Promise<number | null> {
  const spawned = Date.now();
  const result = await execa(process.execPath, [GUARD, '--', process.execPath, '-e', 'process.stdout.write(String(performance.timeOrigin))'], {
    detached: true,
    stdin: 'pipe',
    cleanup: false,
    reject: false,
  });
  const started = Number(result.stdout.trim().split('\n').pop());
  return Number.isFinite(started) ? started - spawned : null;
}

/** `node -e 0` wall time and guardToCommandStart, `times` each, one after the other. */
export async function processStartBaseline(times: number): Promise<{ node: Summary; guardToCommand: Summary }> {
  const node: number[] = [];
  const guard: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const start = performance.now();
    await execa(process.execPath, ['-e', '0'], { reject: false });
    node.push(performance.now() - start);
    const ms = await guardToCommandStart();
    if (ms !== null) guard.push(ms);
  }
  return { node: summarize(node), guardToCommand: summarize(guard) };
}

/** guardToCommandStart every `intervalMs` while a run goes on (the same load as its dispatches); stop for the summary. */
export function sampleGuardStarts(intervalMs: number): { stop(): Promise<Summary> } {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const ms = await guardToCommandStart();
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
