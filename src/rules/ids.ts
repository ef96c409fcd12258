/** Formats an integer zero-padded to `width` digits the way Python's `{n:0Nd}` does (sign first, never truncated). */
export function zeroPad(value: number, width: number): string {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`cannot zero-pad ${value}: not an integer`);
  }
  const digits = String(Math.abs(value));
  return value < 0 ? `-${digits.padStart(width - 1, '0')}` : digits.padStart(width, '0');
}

/** A generation as ids and paths spell it: three digits. */
export function padGeneration(generation: number): string {
  return zeroPad(generation, 3);
}

/** A round or an epoch as ids and paths spell it: four digits. */
export function padRound(round: number): string {
  return zeroPad(round, 4);
}

/** Run id of one candidate in one generation round. */
export function runIdFor(generation: number, round: number, candidate: string): string {
  return `champ-g${padGeneration(generation)}-r${padRound(round)}-${candidate}`;
}

/** The candidate a run id of runIdFor names, or null (an ensemble's synthetic run, another id). */
export function candidateOfRunId(runId: string): string | null {
  return /^champ-g\d+-r\d+-(.+)$/.exec(runId)?.[1] ?? null;
}

/** Synthetic run id of one generation's teacher-member ensemble. */
export function ensembleRunId(generation: number): string {
  return `ens-g${padGeneration(generation)}-teacher`;
}

/** Synthetic run id of the all-selected-checkpoints ensemble after one round. */
export function roundEnsembleRunId(generation: number, round: number): string {
  return `ens-g${padGeneration(generation)}-r${padRound(round)}-all`;
}

/** Manifest file name of one round's all-members ensemble. */
export function roundManifestName(round: number): string {
  return `round-${padRound(round)}-all.json`;
}

/** Replaces every `{generation}` by the three-digit generation; other braces stay untouched. */
export function expandGeneration(text: string, generation: number): string {
  // split/join, not replaceAll: a replacement string would give `$` a meaning.
  return text.split('{generation}').join(padGeneration(generation));
}

/** A file name without its directory and last suffix, as Python's `Path.stem` reads it. */
export function checkpointStem(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? base.slice(0, dot) : base;
}

/** The epoch a checkpoint file name carries in its `-NNNN` stem suffix. */
export function checkpointEpoch(name: string): number {
  const stem = checkpointStem(name);
  const match = /-(\d+)$/.exec(stem);
  if (match?.[1] === undefined) {
    throw new RangeError(`checkpoint name '${name}' has no -NNNN epoch suffix`);
  }
  return Number.parseInt(match[1], 10);
}
