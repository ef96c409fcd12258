// champion-loop worker: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import { runWorker, type WorkerCommandOptions } from '../worker-command.js';
import { DEFAULT_MIN_FREE_PIDS } from '../../workers/pids-limit.js';
import { connectionOptions } from './shared.js';

/** `champion-loop worker`. */
export function addWorkerCommand(program: Command): void {
  connectionOptions(
    program
      .command('worker')
      .description(
        'run a worker: the orchestrator, one GPU lane, or the package worker. A lane stops at once on SIGTERM/SIGINT (its jobs are retried) and drains on SIGUSR2 or `worker gpu --drain` (no new job; the running ones finish, then it exits)',
      )
      .argument('<kind>', 'orchestrator | gpu | package')
      .option('--device <n>', 'gpu: the physical GPU this lane serves')
      .option('--host <name>', "gpu: the host part of the lane's task queue (default: this machine's host name)")
      .option(
        '--config <loop.yaml>',
        "gpu: take the lane's slots, min_free_gib, kill_grace and overtaking from its entry (same --host and --device) in this loop.yaml",
      )
      .option('--slots <n>', 'gpu: jobs this lane runs at once (default 1; with --config it must agree with loop.yaml)')
      .option(
        '--min-free-gib <gib>',
        "gpu: the GPU memory a job needs when its candidate's is not known yet (default 30; with --config it must agree)",
      )
      .option(
        '--kill-grace <duration>',
        "gpu: how long a stopped job's processes get between SIGTERM and SIGKILL (default 25s; with --config it must agree)",
      )
      .option(
        '--overtaking <n>',
        'gpu: how many later steps may start before one that waits for GPU memory (default 0: in the order they came; with --config it must agree)',
      )
      .option(
        '--min-free-pids <n>',
        "gpu: tasks the cgroup's pids.max must still allow before the lane takes a job (0: no check)",
        String(DEFAULT_MIN_FREE_PIDS),
      )
      .option('--cpu', 'gpu: a CPU lane (no GPU on this box): no memory guard, no GPU visible to its jobs')
      .option(
        '--drain',
        'gpu: drain the lane worker of this --host and --device running on this machine (it takes no new job, its running ones finish, then it exits), and wait until it has',
      )
      .option(
        '--make-current',
        "orchestrator, with Worker Versioning: make this build the deployment's current version even when a newer build is (a rollback on purpose); without it an older build restarted serves only the runs started on it",
      )
      .option(
        '--workflow-bundle <file>',
        "orchestrator: run the workflows of this bundle ('champion-loop bundle --out FILE' writes one) instead of bundling them at start",
      )
      .option(
        '--pollers <mode>',
        'orchestrator and gpu: autoscaling (one poll open per kind of task while idle, more with a backlog) or fixed (up to 10 at once, as before); default CHAMPION_LOOP_POLLERS, else autoscaling',
      )
      .option(
        '--metrics-port <port>',
        'serve Prometheus metrics (temporal_*) at http://0.0.0.0:PORT/metrics (default: CHAMPION_LOOP_METRICS_PORT; off)',
      ),
  ).action(async (kind: string, options: WorkerCommandOptions) => {
    await runWorker(kind, options);
  });
}
