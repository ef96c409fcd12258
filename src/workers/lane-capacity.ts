// How many jobs a GPU lane runs at once, how much free memory a job needs and how its steps may
// pass one that waits for memory: one place sets them, the lane's entry in loop.yaml (`slots`,
// `min_free_gib`, `kill_grace`, `overtaking`), whose slots the generation dispatches by too. Flags of `worker gpu` are for a lane started without its loop.yaml; given beside it,
// they must agree with it. Pure: the worker command reads the files and the device.
import { durationMs } from '../config/duration.js';
import {
  DEFAULT_KILL_GRACE,
  DEFAULT_LANE_SLOTS,
  DEFAULT_MIN_FREE_GIB,
  type LoopConfig,
} from '../config/loop-config.js';
import type { GpuReading } from './gpu-memory.js';

/** A lane's capacity and where it came from. */
export interface LaneCapacity {
  readonly slots: number;
  readonly minFreeGiB: number;
  /** How long a stopped job's processes get between SIGTERM and SIGKILL (`kill_grace`). */
  readonly killGraceMs: number;
  /** How many later steps may start before one that waits for GPU memory (`overtaking`; 0: none). */
  readonly overtaking: number;
  /** `loop.yaml lanes[i]` or `flags`: said at start. */
  readonly source: string;
}

/** What the worker command was given of the capacity (undefined: not given). */
export interface CapacityFlags {
  readonly slots?: number;
  readonly minFreeGiB?: number;
  /** `--kill-grace`, a duration such as `2m`. */
  readonly killGrace?: string;
  readonly overtaking?: number;
}

/** The lane's capacity: loop.yaml's entry for (host, device) when a loop.yaml is given, else the flags. */
export function laneCapacity(
  flags: CapacityFlags,
  lane: {
    readonly config: Pick<LoopConfig, 'lanes'>;
    readonly file: string;
    readonly host: string;
    readonly device: number;
  } | null,
): LaneCapacity {
  if (lane === null) {
    return {
      // Without loop.yaml and without flags: loop.yaml's defaults.
      slots: flags.slots ?? DEFAULT_LANE_SLOTS,
      minFreeGiB: flags.minFreeGiB ?? DEFAULT_MIN_FREE_GIB,
      killGraceMs: durationMs(flags.killGrace ?? DEFAULT_KILL_GRACE),
      overtaking: flags.overtaking ?? 0,
      source: Object.values(flags).every((flag) => flag === undefined) ? 'defaults' : 'flags',
    };
  }
  const index = lane.config.lanes.findIndex((entry) => entry.host === lane.host && entry.device === lane.device);
  const entry = lane.config.lanes[index];
  if (!entry) {
    const listed = lane.config.lanes.map((other) => `${other.host}/${other.device}`).join(', ');
    throw new Error(
      `${lane.file} lists no lane with host ${lane.host} and device ${lane.device} (it lists ${listed}): add it under lanes, or start the worker with the --host and --device of one it lists`,
    );
  }
  const where = `${lane.file} lanes[${index}] (host ${entry.host}, device ${entry.device})`;
  const minFreeGiB = entry.min_free_gib;
  const killGrace = entry.kill_grace ?? DEFAULT_KILL_GRACE;
  const overtaking = entry.overtaking ?? 0;
  const disagree = [
    flags.slots !== undefined && flags.slots !== entry.slots ? `--slots ${flags.slots} but slots ${entry.slots}` : null,
    flags.minFreeGiB !== undefined && flags.minFreeGiB !== minFreeGiB
      ? `--min-free-gib ${flags.minFreeGiB} but min_free_gib ${minFreeGiB}`
      : null,
    flags.killGrace !== undefined && durationMs(flags.killGrace) !== durationMs(killGrace)
      ? `--kill-grace ${flags.killGrace} but kill_grace ${killGrace}${entry.kill_grace === undefined ? ' (its default)' : ''}`
      : null,
    flags.overtaking !== undefined && flags.overtaking !== overtaking
      ? `--overtaking ${flags.overtaking} but overtaking ${overtaking}${entry.overtaking === undefined ? ' (its default)' : ''}`
      : null,
  ].filter((text) => text !== null);
  if (disagree.length > 0)
    throw new Error(
      `the worker's flags disagree with ${where}: ${disagree.join('; ')}. loop.yaml sets the lane's capacity (the loop dispatches by it): drop the flag, or change loop.yaml`,
    );
  return { slots: entry.slots, minFreeGiB, killGraceMs: durationMs(killGrace), overtaking, source: where };
}

/** The line a lane says at start: how it admits jobs, given a first reading of its device (null: a CPU lane, no device). */
export function admissionLine(queue: string, capacity: LaneCapacity, reading: GpuReading | null): string {
  const slots = `up to ${capacity.slots} job${capacity.slots === 1 ? '' : 's'} at once`;
  const from = `(capacity from ${capacity.source})`;
  if (reading === null) return `CPU lane ${queue}: no GPU, no memory guard: ${slots} ${from}`;
  switch (reading.kind) {
    case 'no-gpu':
      return `GPU lane ${queue}: ${reading.reason}: no memory guard, it admits by slots alone, ${slots} ${from}; on a box without GPUs start it with --cpu`;
    case 'error':
      return `GPU lane ${queue}: cannot read its device's memory (${reading.reason}): it takes no job until it can ${from}`;
    case 'gpu': {
      const gib = (mib: number) => (mib / 1024).toFixed(1);
      const { memory } = reading;
      const overtaking =
        capacity.overtaking > 0
          ? `; up to ${capacity.overtaking} later step${capacity.overtaking === 1 ? '' : 's'} may start before one that waits for memory`
          : '';
      return `GPU lane ${queue}: device ${memory.index} has ${gib(memory.freeMiB)} of ${gib(memory.totalMiB)} GiB free; it takes a job while ${capacity.minFreeGiB} GiB is free beyond what its running jobs hold, ${slots}${overtaking} ${from}`;
    }
  }
}
