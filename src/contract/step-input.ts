// What a step's summary reads of its activity's input: the catalogue (steps.ts) describes every
// call from these fields alone, so a summary never needs the activity's own types (which the
// workflow bundle must not import) and an input of another shape still reads as something.

/** The fields of activity inputs a summary names; every one optional, as inputs differ. */
export interface StepInput {
  readonly runId?: string;
  readonly run?: { readonly run_id?: string };
  readonly checkpoints?: readonly string[];
  readonly role?: string;
  readonly candidate?: { readonly name?: string };
  readonly champion?: { readonly run_id?: string; readonly checkpoint_name?: string; readonly generation?: number };
  readonly checkpointName?: string;
  readonly generation?: number;
  readonly members?: readonly unknown[];
  readonly name?: string;
  readonly file?: string;
  readonly files?: readonly string[];
  readonly candidatesFile?: string;
  readonly maxMs?: number;
  readonly workflowId?: string;
  readonly kind?: string;
  readonly splitSeed?: number;
}

/** `1 checkpoint`, `3 checkpoints`. */
export const count = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** A champion as summaries name it: its run and checkpoint. */
export const checkpointOf = (champion: StepInput['champion']): string =>
  `${champion?.run_id ?? '?'} ${champion?.checkpoint_name ?? '?'}`;
