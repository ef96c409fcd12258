// What the generation does with an operator's advance or stop (signals and updates): each
// validated, then applied; synchronous, marking the state dirty.
import { ApplicationFailure, log } from '@temporalio/workflow';
import { TEST_BUDGET_SPENT_REASON } from '../../ledger/loop-state.js';
import { foldAdvance } from '../../ledger/report-fold.js';
import { UPDATE_REFUSED } from '../messages.js';
import { foldedAdvanceReason } from '../report-shapes.js';
import type { Generation } from './state.js';

export function onAdvance(gen: Generation, reason: unknown): void {
  if (typeof reason !== 'string')
    log.warn('advance signal without a text reason; advancing as requested', {
      input: JSON.stringify(reason ?? null).slice(0, 200),
    });
  // A reason of megabytes (`temporal workflow signal --input-file`) would fail every workflow task
  // that writes it (memo, continue-as-new input): cut (workflows/report-shapes.ts, foldedAdvanceReason).
  if (gen.failing) gen.failing = { ...gen.failing, until: 0 };
  gen.state = foldAdvance(
    gen.state,
    foldedAdvanceReason(reason, () => true),
  );
  gen.dirty = true;
}

/** Advance reasons the loop sets by itself: a generation they opened was not opened by a person's advance. */
const AUTOMATIC_ADVANCES: readonly string[] = ['reserve_failed', 'max_reserve_checks', TEST_BUDGET_SPENT_REASON];

/** How long after a person's advance an unnamed one is taken for the same command sent again. */
export const ADVANCE_TWICE_MS = 10 * 60_000;
const SENT_TWICE_WORDS = 'less than 10 minutes ago or before scoring anything on its split';

/**
 * The reason of the advance that opened generation `at`, when another unnamed one now would be
 * the same command sent twice: a person's advance opened it less than ADVANCE_TWICE_MS ago, or it
 * has scored nothing on its fresh split yet. Null otherwise.
 */
function sentTwice(gen: Generation, at: number): string | null {
  // A carry older than `openedBy`: only the run that opened the generation knows, by its opening row.
  const reason = gen.openedBy ?? (gen.opening?.event === 'advance' ? gen.opening.reason : null);
  const started = gen.openedAt ?? gen.opening?.started ?? null;
  if (at < 2 || reason === null || AUTOMATIC_ADVANCES.includes(reason)) return null;
  const recent = started !== null && Date.now() - Date.parse(started) < ADVANCE_TWICE_MS;
  return recent || gen.state.testEvals === 0 ? reason : null;
}

function refuse(message: string): never {
  throw ApplicationFailure.create({ message, type: UPDATE_REFUSED, nonRetryable: true });
}

/**
 * An `advance` update's validator: an advance needs a reason, a generation, and none already
 * pending; one that names the generation it means (`fromGeneration`) is refused once the loop is
 * at another, so that a command sent twice (a retry, two people) opens one generation, not two.
 */
export function validateAdvance(gen: Generation, reason: unknown, fromGeneration?: unknown, named?: unknown): void {
  if (typeof reason !== 'string' || reason.trim() === '')
    refuse('advance needs a reason (--reason), e.g. "corpus labels changed"');
  if (gen.state.generation < 1) refuse(`loop '${gen.loopId}' has no generation to advance from yet`);
  const at = gen.state.generation;
  if (typeof fromGeneration === 'number' && fromGeneration < at) {
    const opened =
      at === fromGeneration + 1 && gen.openedBy !== null
        ? `generation ${fromGeneration} was advanced already, and that advance opened generation ${at} (${gen.openedBy})`
        : `generation ${fromGeneration} was advanced already (or moved on by itself), and the loop went on to generation ${at}`;
    refuse(
      `loop '${gen.loopId}' is at generation ${at}, past generation ${fromGeneration} this advance names: ${opened}; nothing changed. To advance generation ${at} too, run advance again`,
    );
  }
  if (typeof fromGeneration === 'number' && fromGeneration > at)
    refuse(
      `loop '${gen.loopId}' is at generation ${at}, not yet at generation ${fromGeneration} this advance names; nothing changed`,
    );
  // The same command sent again moments later finds the generation the first one opened and
  // names it (the one the loop is at now): it is refused unless named on purpose (--generation).
  const twice = sentTwice(gen, at);
  if (typeof fromGeneration === 'number' && named !== true && twice !== null)
    refuse(
      `loop '${gen.loopId}' opened generation ${at} by an advance from generation ${at - 1} (${twice}) ${SENT_TWICE_WORDS}; ` +
        `this advance names generation ${at} only because the loop is there now, so it looks like the same one sent again; nothing changed. ` +
        `To advance generation ${at} all the same, name it: --generation ${at}`,
    );
  if (gen.state.advanceReason !== null)
    refuse(
      `loop '${gen.loopId}' already has an advance pending from generation ${gen.state.generation} (${gen.state.advanceReason})`,
    );
}

/** A `stop` update's validator: a loop already stopping is not stopped twice. */
export function validateStop(gen: Generation): void {
  if (gen.stopping)
    refuse(`loop '${gen.loopId}' is already stopping${gen.stopNow ? ' (at once)' : ''}; nothing changed`);
}

/** A `stopNow` update's validator: a graceful stop may become one at once, one at once is not sent twice. */
export function validateStopNow(gen: Generation): void {
  if (gen.stopNow) refuse(`loop '${gen.loopId}' is already stopping at once; nothing changed`);
}

export function onStop(gen: Generation): void {
  gen.stopping = true;
  gen.dirty = true;
}

export function onStopNow(gen: Generation): void {
  gen.stopNow = true;
  gen.stopping = true;
  gen.dirty = true;
}
