import process from 'node:process';
import { ProgressWatch } from './progress-watch.js';
import type { RunStepOptions } from './subprocess.js';

/** How long a group gets between SIGTERM and SIGKILL when neither the step nor its scope says. */
const DEFAULT_KILL_GRACE_MS = 5_000;

/** A running step's watch: whether it was ended for making no progress, and how to stand the watch down. */
export interface StepSupervision {
  /** True once the step was killed for making no progress (`progress.quietMs` passed quietly). */
  readonly stalled: boolean;
  /** Stops the heartbeats, the progress checks and a pending SIGKILL; the step has ended. */
  stop(): void;
}

/**
 * Watches a started step until `stop`: heartbeats it, kills its group (SIGTERM, then SIGKILL
 * after the grace period) when the step is aborted, and kills it as on abort when its log and
 * watched paths stay quiet for too long. A step whose command never started (no group) is only
 * waited on.
 */
export function superviseStep(options: RunStepOptions, pgid: number | undefined, startedMs: number): StepSupervision {
  const beat = (): void => {
    if (pgid === undefined) return;
    try {
      options.heartbeat?.({ step: options.step, pid: pgid, pgid, elapsedMs: Date.now() - startedMs });
    } catch {
      // A heartbeat that cannot be sent must not stop the step; the server's timeout judges.
    }
  };
  beat();
  const beatEveryMs = options.heartbeatIntervalMs ?? 5_000;
  const heartbeats = setInterval(beat, beatEveryMs);
  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    if (pgid === undefined || killTimer !== undefined) return;
    signalGroup(pgid, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(pgid, 'SIGKILL'), options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted === true) onAbort();
  let stalled = false;
  let ended = false;
  const progress = options.progress;
  const watch = progress && pgid !== undefined ? new ProgressWatch([options.log, ...progress.watch]) : null;
  const checkProgress = (): void => {
    if (watch === null || progress === undefined || stalled) return;
    void watch
      .quietFor()
      .then((quietMs) => {
        if (quietMs === null || quietMs < progress.quietMs || stalled || ended) return;
        stalled = true;
        onAbort();
      })
      .catch(() => undefined);
  };
  checkProgress();
  const progressChecks =
    watch === null || progress === undefined
      ? undefined
      : setInterval(checkProgress, Math.max(100, Math.min(beatEveryMs, Math.floor(progress.quietMs / 4))));
  return {
    get stalled() {
      return stalled;
    },
    stop() {
      ended = true;
      clearInterval(heartbeats);
      clearInterval(progressChecks);
      if (killTimer !== undefined) clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Sends a signal to a whole process group; a group already gone is no error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
