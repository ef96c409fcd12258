// Sections 3, 4 and 5 on one long generation: thousands of runs on the bench stack (shell steps,
// the cheapest the contract allows), then, with the loop still running, the `status` round
// trip; the history of every run of the generation (continue-as-new included) counted; its
// largest run replayed in a fresh process with the real bundle; and a fresh orchestrator
// process taking the running generation over. The steps live in history/.
import { withBenchSession } from '../lib/bench-session.js';
import type { BenchContext } from '../lib/context.js';
import type { Figure } from '../lib/figures.js';
import { countChain } from './history/chain.js';
import {
  clientFigures,
  eventsByTypeNote,
  historyDetails,
  historyEventFigures,
  historyRunFigures,
  replayFigures,
  type HistoryMeasures,
} from './history/figures.js';
import { runHistoryLoop, setUpHistoryLoop } from './history/loop.js';
import { measureReplay } from './history/replay.js';
import { measureStoppedStatus } from './history/stopped-status.js';

export async function runHistory(
  ctx: BenchContext,
): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const { options, log } = ctx;
  const dynamicConfig =
    options.historyCanEvents === null ? {} : { 'limit.historyCount.suggestContinueAsNew': options.historyCanEvents };
  const measures = await withBenchSession(ctx, 'history', dynamicConfig, async (session): Promise<HistoryMeasures> => {
    const loop = await setUpHistoryLoop(options, session.server.dir);
    const run = await runHistoryLoop(ctx, session, loop);
    const stopped = await measureStoppedStatus(session.client, log);
    const chain = await countChain(session, run.run.done);
    const replay = await measureReplay(ctx, session.server.dir, chain.chain, chain.largestIndex);
    return { options, loop, run, stopped, chain, replay };
  });
  return {
    figures: [
      ...historyEventFigures(measures),
      ...historyRunFigures(measures),
      ...replayFigures(measures),
      ...clientFigures(measures),
    ],
    notes: [eventsByTypeNote(measures)],
    details: historyDetails(measures),
  };
}
