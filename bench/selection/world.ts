// The synthetic world the selection simulation runs the champion rules in: candidates with known
// true error rates per class, items with a difficulty shared by every candidate (so that their
// mistakes fall on the same hard items, as real checkpoints' do), and the held-out sets a
// generation scores them on. Pure: every draw comes from the seeded generator.
import type { Random } from './random.js';

/** The sizes and shape of one world; the defaults are `npm run sim:selection`'s. */
export interface WorldOptions {
  /** Items in the working test set, the validation set and the reserve set. */
  readonly testItems: number;
  readonly validationItems: number;
  readonly reserveItems: number;
  /** Items kept apart from the reserve set to confirm promotions (the `confirmed` rule). */
  readonly confirmationItems: number;
  /** Fraction of items that should fail (Fail->Pass is an error on these; Pass->Fail on the rest). */
  readonly failFraction: number;
  /** Evaluations (scored checkpoints) in a generation. */
  readonly evaluations: number;
  /** Mean true error rates of a candidate, per class. */
  readonly f2pRate: number;
  readonly p2fRate: number;
  /** Spread of candidates' ability, in logits: how different their true error rates are. */
  readonly spread: number;
  /** Weight of an item's difficulty, in logits: how strongly candidates' mistakes coincide. */
  readonly difficulty: number;
}

/** One error class's items of one held-out set: each item's difficulty. */
interface ClassItems {
  readonly difficulty: Float64Array;
}

/** A held-out set: the items that should fail, and those that should pass. */
export interface HeldOutSet {
  readonly fails: ClassItems;
  readonly passes: ClassItems;
}

/** One candidate: its ability per class (logits) and its true error rates over the item population. */
export interface Candidate {
  readonly f2pAbility: number;
  readonly p2fAbility: number;
  readonly trueF2pRate: number;
  readonly trueP2fRate: number;
}

/** A candidate's outcome on every item of one class: 1 where it errs. */
export type Errors = Uint8Array;

/** A candidate scored on one set: per-item errors of both classes. */
export interface Scored {
  readonly f2p: Errors;
  readonly p2f: Errors;
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

// A grid over +-8 sd: the trapezoid rule on a smooth integrand under a normal density converges
// fast (1e-9 here), plainer than Gauss-Hermite nodes.
const STEP = 0.02;
const GRID = Array.from({ length: 801 }, (_, i) => -8 + i * STEP);
const WEIGHTS = GRID.map((d) => (Math.exp((-d * d) / 2) / Math.sqrt(2 * Math.PI)) * STEP);

/** A candidate's true error rate: its chance to err on an item of standard-normal difficulty. */
export function trueRate(ability: number, difficulty: number): number {
  let sum = 0;
  GRID.forEach((d, i) => {
    sum += (WEIGHTS[i] as number) * sigmoid(difficulty * d - ability);
  });
  return sum;
}

/** The ability whose true error rate is `rate`, by bisection (the rate falls as ability rises). */
export function abilityFor(rate: number, difficulty: number): number {
  let low = -20;
  let high = 20;
  for (let i = 0; i < 100; i++) {
    const middle = (low + high) / 2;
    if (trueRate(middle, difficulty) > rate) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return (low + high) / 2;
}

export function drawSet(random: Random, items: number, failFraction: number): HeldOutSet {
  const fails = Math.round(items * failFraction);
  const draw = (n: number): ClassItems => ({ difficulty: Float64Array.from({ length: n }, () => random.normal()) });
  return { fails: draw(fails), passes: draw(items - fails) };
}

export function drawCandidates(random: Random, options: WorldOptions): Candidate[] {
  const f2pMean = abilityFor(options.f2pRate, options.difficulty);
  const p2fMean = abilityFor(options.p2fRate, options.difficulty);
  return Array.from({ length: options.evaluations }, () => {
    const f2pAbility = f2pMean + options.spread * random.normal();
    const p2fAbility = p2fMean + options.spread * random.normal();
    return {
      f2pAbility,
      p2fAbility,
      trueF2pRate: trueRate(f2pAbility, options.difficulty),
      trueP2fRate: trueRate(p2fAbility, options.difficulty),
    };
  });
}

function scoreClass(random: Random, items: ClassItems, ability: number, difficulty: number): Errors {
  const errors = new Uint8Array(items.difficulty.length);
  items.difficulty.forEach((d, i) => {
    errors[i] = random.uniform() < sigmoid(difficulty * d - ability) ? 1 : 0;
  });
  return errors;
}

/** Scores a candidate on a set: each item an independent draw at the candidate's chance on it. */
export function score(random: Random, set: HeldOutSet, candidate: Candidate, difficulty: number): Scored {
  return {
    f2p: scoreClass(random, set.fails, candidate.f2pAbility, difficulty),
    p2f: scoreClass(random, set.passes, candidate.p2fAbility, difficulty),
  };
}

export function errorCount(errors: Errors): number {
  let count = 0;
  for (const value of errors) {
    count += value;
  }
  return count;
}
