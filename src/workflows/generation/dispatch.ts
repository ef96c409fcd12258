// Fill free lane slots: at most `parallel` jobs in flight and at most each lane's slots.
import { pickLane } from '../lanes.js';
import type { GenerationActivities } from './activities.js';
import { launch } from './child-starts.js';
import { ensureSplit, nextJob } from './planning.js';
import { busyLanes, type Generation } from './state.js';

export async function dispatchJobs(gen: Generation, activities: GenerationActivities): Promise<void> {
  while (!gen.stopping && gen.inFlight.length < gen.config.parallel) {
    if (!pickLane(gen.lanes, busyLanes(gen), gen.lanesDownUntil, Date.now(), null)) return;
    const job = await nextJob(gen, activities);
    if (job === null) return;
    if (job.kind === 'run' && !(await ensureSplit(gen, activities))) {
      gen.queue.unshift(job);
      return;
    }
    const lane = pickLane(
      gen.lanes,
      busyLanes(gen),
      gen.lanesDownUntil,
      Date.now(),
      job.kind === 'run' ? job.preferredLane : null,
    );
    if (!lane) {
      gen.queue.unshift(job);
      return;
    }
    launch(gen, job, lane.queue, activities);
    // A stop at once or an advance is handled before anything else is launched.
    if (gen.stopNow || gen.state.advanceReason !== null) return;
  }
}
