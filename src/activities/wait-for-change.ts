import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { activityHooks } from './support/activity-context.js';
import { exists } from './support/move-aside.js';

export interface WaitForChangeInput {
  /** Teacher files students wait for: any of them appearing ends the wait. */
  readonly files: readonly string[];
  /** The candidates file: any change of it ends the wait. */
  readonly candidatesFile: string;
  /** Give up after this long (the workflow looks again and waits anew). */
  readonly maxMs: number;
  readonly pollMs?: number;
}

async function signature(file: string): Promise<string> {
  try {
    const info = await stat(file);
    return `${info.size}:${info.mtimeMs}:${info.ino}`;
  } catch {
    return 'missing';
  }
}

/**
 * Waits, heartbeating, until a waited-for file appears or the candidates file changes: an idle
 * loop costs one activity in its history however long it idles, not a timer per poll.
 */
export async function waitForChange(
  input: WaitForChangeInput,
): Promise<'file-appeared' | 'candidates-changed' | 'timed-out'> {
  const hooks = activityHooks();
  const before = await signature(input.candidatesFile);
  const deadline = Date.now() + input.maxMs;
  while (Date.now() < deadline) {
    for (const file of input.files) if (await exists(file)) return 'file-appeared';
    if ((await signature(input.candidatesFile)) !== before) return 'candidates-changed';
    hooks.heartbeat?.({ step: 'idle', pid: 0, pgid: 0, elapsedMs: input.maxMs - (deadline - Date.now()) });
    await sleep(input.pollMs ?? 2_000, undefined, hooks.signal ? { signal: hooks.signal } : {}).catch(() => undefined);
    if (hooks.signal?.aborted) throw hooks.signal.reason;
  }
  return 'timed-out';
}
