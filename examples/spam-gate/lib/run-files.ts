// File names inside a run directory; the loop reads the epoch from the -NNNN stem suffix.

function stem(epoch: number): string {
  return String(epoch).padStart(4, '0');
}

export function checkpointName(epoch: number): string {
  return `checkpoint-${stem(epoch)}.json`;
}

export function validationMetricsName(epoch: number): string {
  return `validation-epoch-${stem(epoch)}.json`;
}

export function validationScoresName(epoch: number): string {
  return `validation-epoch-${stem(epoch)}.scores.jsonl`;
}

/**
 * The line a trainer prints before exiting 1 when no epoch qualified; loop.yaml's
 * `no_checkpoint_marker` holds the same text.
 */
export const NO_CHECKPOINT = 'no eligible checkpoint';
