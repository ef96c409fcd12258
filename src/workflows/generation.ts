// One generation of a champion loop: a fresh split, rounds of training runs dispatched to GPU
// lanes as child workflows, the champion and Pareto front folded from their reports, reserve
// checks when the test set looks saturated, and continue-as-new into the next generation.
// docs/behaviour.md sections 3-6 and 9 say what it guarantees; the machinery is in ./generation/.
import {
  allHandlersFinished,
  condition,
  log,
  patched,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { generationRow } from '../ledger/loop-state.js';
import { generationActivities } from './generation/activities.js';
import { adoptCarriedChildren } from './generation/adoption.js';
import { freshGenerationPlans, type GenerationInput, type GenerationResult } from './generation/carry.js';
import { keepDetailsCurrent } from './generation/details.js';
import { dispatchJobs } from './generation/dispatch.js';
import {
  handOverDue,
  sendChampionsToPackaging,
  settleBeforeHandOver,
  stopAtOnce,
  waitForWork,
} from './generation/hand-over.js';
import { noteLanesInUse, now, openGeneration, stopped, toCarry } from './generation/state.js';
import { answerMessages } from './generation/handlers.js';
import { GENERATION, LOOP_ID, LOOP_KIND } from '../contract/search-attributes.js';
import { continueOnCurrentBuild } from './build-upgrade.js';
import { markBaseline } from './baseline.js';
import { CHAMPION_IDENTITY } from './patches.js';

export type { GenerationInput, GenerationResult } from './generation/carry.js';

/** The generation workflow: `champion-loop/<loop>`, one run per generation (and more when history grows). */
export async function generation(input: GenerationInput): Promise<GenerationResult> {
  markBaseline();
  const { loopId, config } = input;
  // A run recorded before the change told a champion that stayed by its object (patches.ts).
  const identity = patched(CHAMPION_IDENTITY) ? 'checkpoint' : 'object';
  const gen = openGeneration(input, workflowInfo().runStartTime.toISOString(), identity);
  const activities = generationActivities(config);

  answerMessages(gen, input.startToken);
  // The Web UI's live page of the loop (current details), redrawn whenever the state changes.
  keepDetailsCurrent(gen);
  // Children report by completion to the run that started them: those carried in are adopted.
  adoptCarriedChildren(gen, activities);

  if (gen.opening) log.info('generation start', { generation: gen.opening.generation, reason: gen.opening.reason });
  upsertSearchAttributes([
    { key: LOOP_ID, value: loopId },
    { key: LOOP_KIND, value: 'generation' },
    { key: GENERATION, value: gen.state.generation },
  ]);
  upsertMemo({ loop: loopId, generation: gen.state.generation, stateDir: gen.paths.stateDir });

  for (;;) {
    // Cleared before this turn's work: a signal that arrives while it awaits an activity wakes the next wait.
    gen.dirty = false;
    noteLanesInUse(gen);
    if (gen.stopNow) {
      await stopAtOnce(gen, activities);
      await condition(allHandlersFinished);
      return stopped(gen);
    }
    await sendChampionsToPackaging(gen, activities);
    if (gen.state.advanceReason !== null && !gen.stopping) {
      await settleBeforeHandOver(gen, activities);
      // A stop that came in meanwhile wins: the advance waits in the state for the loop's resumption.
      if (!gen.stopping) {
        const opening = generationRow(gen.state, gen.state.advanceReason ?? 'requested', config.base_seed, now());
        await condition(allHandlersFinished);
        log.info('generation advance', { from: gen.state.generation, reason: opening.reason });
        // Queued jobs belong to the old generation; running ones finish and report into the new run.
        const carry = {
          ...toCarry(gen),
          ...freshGenerationPlans(),
          opening,
          split: null,
          splitFailed: null,
          round: 0,
          queue: [],
        };
        return continueOnCurrentBuild<typeof generation>({ loopId, config, carry });
      }
    }
    await dispatchJobs(gen, activities);
    noteLanesInUse(gen);
    if (gen.stopping && gen.inFlight.length === 0) {
      log.info('stopped', { generation: gen.state.generation });
      await condition(allHandlersFinished);
      return stopped(gen);
    }
    if (handOverDue(gen)) {
      await settleBeforeHandOver(gen, activities);
      // An immediate stop that came in meanwhile is not carried over: the next turn handles it.
      await condition(allHandlersFinished);
      if (!gen.stopNow) return continueOnCurrentBuild<typeof generation>({ loopId, config, carry: toCarry(gen) });
    }
    await waitForWork(gen, activities);
  }
}
