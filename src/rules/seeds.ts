import { TRAIN_SEED_BASE } from './constants.js';

/** Training seed of a round, the same for every candidate so that rounds compare configs, not luck. */
export function trainingSeed(round: number): number {
  return TRAIN_SEED_BASE + round;
}

/** Split seed of a generation: each generation gets a fresh, reproducible split. */
export function splitSeed(baseSeed: number, generation: number): number {
  return baseSeed + generation;
}
