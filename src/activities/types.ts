// What the workflows send to activities and get back. Workflows import this file as types only.
import type { EvalRow, Role } from '../rules/types.js';
import type { Candidate } from '../config/candidate.js';
import type { RunRow, RunStatus } from '../ledger/rows.js';
import type { LaneJob } from '../contract/lane-job.js';
import type { ArtifactSettings } from '../artifacts/store-settings.js';
import type { StoredPackage } from '../artifacts/package-store.js';
import type { FileRef } from '../artifacts/file-ref.js';
import type { DataFingerprint } from '../artifacts/data-fingerprint.js';

export type { Candidate };

/** Where a loop's files live (absolute paths) and where its subprocesses run. */
export interface LoopPaths {
  readonly workdir: string;
  readonly stateDir: string;
  readonly runsRoot: string;
  readonly dataRoot: string;
  readonly scoreCacheDir: string | null;
}

/** The command (program and fixed leading arguments) of each step of the subprocess contract. */
export interface StepCommands {
  readonly train: readonly string[];
  readonly evaluate: readonly string[];
  readonly evaluate_ensemble: readonly string[];
  readonly split_generate: readonly string[];
  readonly split_carve: readonly string[];
  readonly teacher_scores: readonly string[];
  readonly package: readonly string[] | null;
}

/** The candidates file re-read: the list, or why it is invalid. */
export type CandidatesRead =
  { readonly ok: true; readonly candidates: Candidate[] } | { readonly ok: false; readonly error: string };

export interface BuildSplitInput {
  readonly paths: LoopPaths;
  readonly commands: StepCommands;
  readonly generation: number;
  readonly splitSeed: number;
}

export interface PrepareRunInput {
  readonly paths: LoopPaths;
  readonly candidate: Candidate;
  readonly generation: number;
  readonly round: number;
  readonly seed: number;
  readonly split: string;
  readonly runId: string;
  /** Workflow id of the training run: marks the run directory as the loop's own. */
  readonly owner: string;
  /** loop.yaml `artifacts:`: the job config and the split go to the store for the lane's host. */
  readonly artifacts?: ArtifactSettings;
}

/** The job config written for one run; `stale` when its run directory existed before the loop started it. */
export interface PreparedRun {
  readonly configPath: string;
  readonly configSha256: string;
  readonly stale: boolean;
  /** With loop.yaml `artifacts:`: the job config and the split, in the store (the run row's first `files`). */
  readonly inputs?: FileRef[];
  /** With loop.yaml `artifacts:`: the orchestrator's data_root, which the lane's must match. */
  readonly data?: DataFingerprint;
}

export interface TrainInput {
  readonly paths: LoopPaths;
  readonly commands: StepCommands;
  readonly runId: string;
  readonly configPath: string;
  readonly owner: string;
  /** The trainer's line that means "no eligible checkpoint" (exit 1). */
  readonly noCheckpointMarker: string;
  /** loop.yaml `timeouts.no_progress`, e.g. `2h`; absent (inputs from before the setting): its default. */
  readonly noProgress?: string;
  /**
   * loop.yaml `resume_flag`, e.g. `--resume-from`: a run directory an earlier attempt left is
   * resumed from its newest complete epoch with `<flag> <checkpoint>`. Absent: trained afresh.
   */
  readonly resumeFlag?: string;
  /** What the job's steps may use of the lane (opened by the lane's activity wrapper); absent: the lane's defaults. */
  readonly laneJob?: LaneJob;
  /** loop.yaml `artifacts:`: the job config and split are fetched from the store (`inputs`), and the checkpoints uploaded. */
  readonly artifacts?: ArtifactSettings;
  readonly inputs?: readonly FileRef[];
  /** The orchestrator's data_root fingerprint: the lane refuses to train on a copy that differs. */
  readonly data?: DataFingerprint;
}

/** How a GPU lane admitted a training or a reserve evaluation: the facts a `dispatch` ledger row records (ledger/rows.ts). */
export interface LaneAdmission {
  /** The lane's task queue and physical device. */
  readonly worker: string;
  readonly physical_device: number;
  /** Its place among the steps the lane's worker admitted since it started. */
  readonly slot: number;
  /** The GPU memory it was admitted to grow to, in MiB. */
  readonly need_mib: number;
  /** When the trainer started, once admitted. */
  readonly admitted: string;
  /** The device's size as the lane read it, in MiB (absent from older lanes). */
  readonly total_mib?: number;
}

/** How training ended, in the run row's terms, plus what ranking ensembles needs later. */
export interface TrainOutcome extends WithMemoryWaits {
  readonly status: Exclude<RunStatus, 'stale_run_dir' | 'ensemble'>;
  readonly train_rc: number | null;
  readonly epochs_run: number;
  readonly checkpoints: string[];
  readonly error: string | null;
  readonly started: string;
  readonly finished: string;
  /** On a GPU lane: the trainer's time and the most memory its processes held (run row fields). */
  readonly gpu_seconds?: number;
  readonly gpu_peak_mib?: number;
  /** On a GPU lane that read its device: how the lane admitted the trainer (the ledger's dispatch rows). */
  readonly admission?: LaneAdmission;
  /** Times the trainer ran out of GPU memory and waited for room (absent when none). */
  readonly oom_retries?: number;
  /** With loop.yaml `artifacts:`: the inputs and the run's checkpoints and selection, uploaded (the run row's `files`). */
  readonly files?: FileRef[];
  readonly selected: {
    readonly checkpoint: string;
    readonly falseNegatives: number | null;
    readonly validationGateAuc: number | null;
  } | null;
}

export interface EvaluateRunInput {
  readonly paths: LoopPaths;
  readonly commands: StepCommands;
  readonly run: RunRow;
  readonly checkpoints: string[];
  readonly role: Role;
  /** Under loop.yaml `champion_rule: paired`: add each ok row's per-item error record of this block. */
  readonly itemErrors?: 'result' | 'decided';
  /** What the job's steps may use of the lane (opened by the lane's activity wrapper); absent: the lane's defaults. */
  readonly laneJob?: LaneJob;
  /** loop.yaml `artifacts:`: the run's `files` are fetched first, and each row's report and scores uploaded. */
  readonly artifacts?: ArtifactSettings;
}

/** An eval row as a lane's evaluation returns it: on a GPU lane, with what its evaluator held (the workflow takes it off before the row is recorded). */
export type ScoredRow = EvalRow & { readonly gpu_peak_mib?: number; readonly memory_waits?: MemoryWaits };

/** A job's steps' waits for GPU memory on their lane (admissions and out-of-memory waits), [from, to] in epoch ms. */
export type MemoryWaits = readonly (readonly [number, number])[];

/**
 * What a lane activity's steps waited for their lane's GPU memory, on its outcome (on the first
 * row of a list of rows): added by the lane's activity wrapper, never recorded in a row.
 */
interface WithMemoryWaits {
  readonly memory_waits?: MemoryWaits;
}

export interface ReserveInput {
  readonly paths: LoopPaths;
  readonly commands: StepCommands;
  /** The champion's test eval row: run id, config (or manifest for an ensemble) and checkpoint. */
  readonly champion: EvalRow;
  readonly checkpointName: string;
  /** loop.yaml `artifacts:`: the champion's `files` are fetched first (it was trained on another host). */
  readonly artifacts?: ArtifactSettings;
  /** What the check's steps may use of the lane (opened by the lane's activity wrapper); absent: the lane's defaults. */
  readonly laneJob?: LaneJob;
}

/** A scored checkpoint on the reserve role: its eval row (status failed when there was no report). */
export interface ReserveOutcome extends WithMemoryWaits {
  readonly row: EvalRow;
  /** On a GPU lane that read its device: how the lane admitted the evaluator (the check's dispatch rows). */
  readonly admission?: LaneAdmission;
  /** On a GPU lane that listed its processes: the most the evaluator held, in MiB (its candidate's evaluations are admitted by it). */
  readonly peakMiB?: number;
}

export interface PackageInput {
  readonly paths: LoopPaths;
  readonly command: readonly string[];
  readonly champion: PackageChampion;
  /** loop.yaml `artifacts:`: a package the command made is uploaded there before its outcome is recorded. */
  readonly store?: { readonly settings: ArtifactSettings; readonly loopId: string };
}

/** The champion fields packaging needs (from its eval row). */
export interface PackageChampion {
  readonly generation: number;
  readonly run_id: string;
  readonly epoch: number | null;
  readonly checkpoint_name: string;
  readonly checkpoint: string;
  readonly config_path: string;
  readonly eval_json: string;
  readonly manifest?: string;
  /** With loop.yaml `artifacts:`: its eval row's `files`, fetched onto the package worker's host first. */
  readonly files?: readonly FileRef[];
  /** When the generation asked for it: the time of a `dropped` row when a newer one replaces it. */
  readonly requested: string;
}

/** One package command's life: launched with a pid and finished with an exit code, or never launched. */
export type PackageOutcome =
  | {
      readonly launched: true;
      readonly command: string[];
      readonly pid: number;
      readonly log: string;
      readonly started: string;
      readonly exitCode: number | null;
      readonly finished: string;
      /** With loop.yaml `artifacts:`: the package as uploaded to the store (exit 0 and a path printed). */
      readonly stored?: StoredPackage;
    }
  | { readonly launched: false; readonly error: string; readonly time: string };

/** One trained run the teacher is built from. */
export interface TeacherMember {
  readonly run_id: string;
  readonly config_path: string;
  readonly config_sha256: string;
  /** With loop.yaml `artifacts:`: its run row's files (job config, split, run directory), fetched onto the lane first. */
  readonly files?: readonly FileRef[];
}

export interface TeacherInput {
  readonly paths: LoopPaths;
  readonly commands: StepCommands;
  readonly generation: number;
  /** The generation's teacher file, `{generation}` expanded, absolute. */
  readonly teacherPath: string;
  readonly members: readonly TeacherMember[];
  /** loop.yaml `artifacts:`: members' files are fetched first, and the teacher file uploaded for the loop's other hosts. */
  readonly store?: { readonly settings: ArtifactSettings; readonly loopId: string };
  /**
   * loop.yaml `reuse_teacher_preparation` (the seed's `--reuse-teacher-preparation`): members of
   * one input lineage share one evaluator process with a jobs file. Absent or false: one
   * single-checkpoint evaluation per member with its own config (the seed's default).
   */
  readonly reuseTeacherPreparation?: boolean;
  /** What the build's member evaluations may use of the lane (opened by the lane's activity wrapper). */
  readonly laneJob?: LaneJob;
}

/** A teacher build's outcome: the `teacher` ledger row's fields (docs/ledger.md, teacher). */
export interface TeacherOutcome extends WithMemoryWaits {
  readonly status: 'ok' | 'failed';
  readonly path: string;
  readonly sha256?: string;
  readonly members: {
    readonly run_id: string;
    readonly checkpoint_name: string;
    readonly config: string;
    readonly checkpoint: string;
  }[];
  readonly started: string;
  readonly finished: string;
  readonly error?: string;
  /** With loop.yaml `artifacts:`, a built teacher: its file in the store (the teacher row's `files`). */
  readonly files?: FileRef[];
}

export interface EnsembleManifestInput {
  readonly paths: LoopPaths;
  readonly generation: number;
  /** `teacher-members.json` or `round-RRRR-all.json`. */
  readonly name: string;
  readonly members: readonly { readonly config: string; readonly checkpoint: string }[];
  /** loop.yaml `artifacts:`: the manifest goes to the store, for the lane that scores it, beside its members' `files`. */
  readonly artifacts?: ArtifactSettings;
  readonly files?: readonly FileRef[];
}

/** A member an ensemble's manifest leaves out: a file its evaluation needs is gone. */
export interface LeftOutMember {
  readonly config: string;
  readonly checkpoint: string;
  /** e.g. `job config /.../round-0002/a.yaml is gone (was the state dir emptied?)`. */
  readonly why: string;
}

/** An ensemble manifest on disk (reused when an earlier attempt wrote it). */
export interface EnsembleManifest {
  readonly path: string;
  readonly sha256: string;
  /** With loop.yaml `artifacts:`: the manifest and its members' files, in the store (the ensemble run row's `files`). */
  readonly files?: FileRef[];
  /** Members left out of the manifest, and why (absent when none: every member is in it). */
  readonly left_out?: LeftOutMember[];
}
