import { UsageError } from './args.js';
import { asRecord, optionalString } from './check.js';
import type { FeatureSettings } from './features.js';
import { readText, sha256Text } from './files.js';
import { checkedFeatures, integerIn, numberIn, oneOf } from './settings.js';

/** A job config: the loop's YAML (base config + overrides + split + seed), checked. */
export interface TrainConfig {
  readonly path: string;
  readonly sha256: string;
  readonly split: string;
  readonly seed: number;
  readonly features: FeatureSettings;
  readonly epochs: number;
  readonly batch_size: number;
  readonly optimizer: 'adam' | 'sgd';
  readonly learning_rate: number;
  readonly l2: number;
  /** Loss weight of a spam (fail) mail; above 1 trades Pass->Fail for fewer Fail->Pass. */
  readonly class_weight_fail: number;
  /** A teacher file (JSONL of {id, margin}) to distil from; a student's override. */
  readonly gate_soft_targets: string | undefined;
  /** How much of a student's target is the teacher's sigmoid(margin) rather than the label. */
  readonly soft_target_weight: number;
  /** An epoch whose validation gate AUC is below this is not offered as a checkpoint. */
  readonly min_validation_auc: number;
}

export async function readConfig(path: string): Promise<TrainConfig> {
  const text = readText(path, 'config');
  const { parse } = await import('yaml');
  const what = `config ${path}`;
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  const values = asRecord(parsed, what);
  const split = optionalString(values, 'split', what);
  if (split === undefined) throw new UsageError(`${what}: split is required (the loop adds it)`);
  return {
    path,
    sha256: sha256Text(text),
    split,
    seed: integerIn(values.seed, 0, 0, 2 ** 32 - 1, `${what}: seed`),
    features: checkedFeatures(values, what),
    epochs: integerIn(values.epochs, 4, 1, 1000, `${what}: epochs`),
    batch_size: integerIn(values.batch_size, 32, 1, 1_000_000, `${what}: batch_size`),
    optimizer: oneOf(values.optimizer, 'adam', ['adam', 'sgd'] as const, `${what}: optimizer`),
    learning_rate: numberIn(values.learning_rate, 0.02, 1e-9, 100, `${what}: learning_rate`),
    l2: numberIn(values.l2, 1e-6, 0, 10, `${what}: l2`),
    class_weight_fail: numberIn(values.class_weight_fail, 1, 1e-3, 1000, `${what}: class_weight_fail`),
    gate_soft_targets: optionalString(values, 'gate_soft_targets', what),
    soft_target_weight: numberIn(values.soft_target_weight, 0.5, 0, 1, `${what}: soft_target_weight`),
    min_validation_auc: numberIn(values.min_validation_auc, 0.5, 0, 1, `${what}: min_validation_auc`),
  };
}
