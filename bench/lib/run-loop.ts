// Run a loop for a fixed number of rounds: start it, empty candidates.yaml once the last round
// has begun (the next round then finds no candidates), wait until every job is done, stop it.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { startLoop } from '../../src/client/loop-start.js';
import type { GenerationResult } from '../../src/workflows/generation.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stateQuery, stopSignal } from '../../src/workflows/messages.js';
import type { LoopFolder } from './loop-folder.js';

export interface BoundedRun {
  /** Loop start (client side) and when the last job was seen done, epoch ms. */
  readonly startedAt: number;
  readonly doneAt: number;
  /** Jobs done in all (those running at a stop finish first); fewer than asked for when the budget ran out. */
  readonly done: number;
  /** Jobs done at doneAt: the rate is doneAtStop / (doneAt - startedAt). */
  readonly doneAtStop: number;
  readonly complete: boolean;
  readonly result: GenerationResult;
}

/**
 * Start `loopId` and let it run `rounds` rounds. `finished()` says how many jobs are done (cheap:
 * a trace or a folder); when it reaches `jobs` the loop's state is checked with one query and
 * the loop is stopped gracefully. `progress` gets a line now and then.
 */
export async function runRounds(options: {
  readonly client: Client;
  readonly loopId: string;
  readonly folder: LoopFolder;
  readonly rounds: number;
  readonly jobs: number;
  readonly finished: () => Promise<number>;
  readonly timeoutMs: number;
  /** throw (default): running out of time is an error; stop: stop the loop there and report what was done. */
  readonly onTimeout?: 'throw' | 'stop';
  readonly pollMs?: number;
  /** Called once every job is done (or the budget ran out), before the loop is stopped: the loop still runs. */
  readonly whileIdle?: () => Promise<void>;
  readonly progress?: (line: string) => void;
}): Promise<BoundedRun> {
  const { client, loopId, folder } = options;
  const handle = client.workflow.getHandle(loopWorkflowId(loopId));
  const startedAt = Date.now();
  const deadline = startedAt + options.timeoutMs;
  await startLoop(client, loopId, folder.config);
  const lastRound = folder.roundDir(1, options.rounds);
  let lastReport = Date.now();
  const report = async (): Promise<void> => {
    if (!options.progress || Date.now() - lastReport < 30_000) return;
    lastReport = Date.now();
    options.progress(`${await options.finished()}/${options.jobs} jobs done`);
  };
  let done = 0;
  let complete = true;
  // Polled often: the last round's jobs must not all start before the candidates file is emptied.
  while (!existsSync(lastRound) && Date.now() <= deadline) {
    await report();
    await sleep(25);
  }
  if (Date.now() > deadline) {
    if (options.onTimeout !== 'stop') throw new Error(`loop ${loopId}: round ${options.rounds} did not start in time`);
    complete = false;
  }
  await folder.writeCandidates([]);
  while (complete) {
    done = await options.finished();
    if (done >= options.jobs) {
      const view = await handle.query(stateQuery);
      if (view.in_flight.length === 0 && view.queued === 0) break;
    }
    if (Date.now() > deadline) {
      if (options.onTimeout !== 'stop')
        throw new Error(`loop ${loopId}: only ${done} of ${options.jobs} jobs done in time`);
      complete = false;
      break;
    }
    await report();
    await sleep(options.pollMs ?? 200);
  }
  const doneAt = Date.now();
  const doneAtStop = complete ? done : await options.finished();
  // Out of budget, the loop is still busy with the round it had queued: whileIdle then measures under load.
  await options.whileIdle?.();
  await handle.signal(stopSignal);
  const result = (await handle.result()) as GenerationResult;
  done = complete ? done : await options.finished();
  return { startedAt, doneAt, done, doneAtStop, complete, result };
}
