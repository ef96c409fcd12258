import type { Message } from './corpus.js';
import { margin, type GateModel } from './model.js';
import { round6 } from './random.js';
import type { Featurizer } from './vectors.js';

/** One scored mail, as scores files hold it (target 1 = ham, margin > 0 = pass). */
export interface ScoreRow {
  readonly id: string;
  readonly target: 0 | 1;
  readonly margin: number;
}

/** The mean gate margin of the models on each message (one model: its own margin). */
export function scoreMessages(
  models: readonly GateModel[],
  messages: readonly Message[],
  featurizer: Featurizer,
): ScoreRow[] {
  const sums = new Float64Array(messages.length);
  for (const model of models) {
    featurizer.vectors(messages, model.features).forEach((vector, i) => {
      sums[i] = (sums[i] ?? 0) + margin(model, vector);
    });
  }
  return messages.map((message, i) => ({
    id: message.id,
    target: message.target,
    margin: round6((sums[i] ?? 0) / models.length),
  }));
}
