// @ts-check
/**
 * Opt-in step trace for the benchmarks (bench/): with FIXTURE_TRACE=<file>, every step appends
 * one JSON line when it ends: {step, lane, pid, start, loaded, end, config, manifest}. `start` is
 * when the process began (performance.timeOrigin), `loaded` when its script began to run, `end`
 * when its work was done (epoch milliseconds); `lane` is CUDA_VISIBLE_DEVICES (the lane worker
 * sets it); `config` and `manifest` are the --config and --manifest arguments (null when not
 * given), which name the job. Unset: nothing is written.
 */
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

/**
 * Start tracing one step; call the returned function when the step's work is done.
 * @param {string} step
 * @param {readonly string[]} argv
 * @returns {() => void}
 */
export function traceStep(step, argv) {
  const file = process.env.FIXTURE_TRACE;
  if (!file) return () => undefined;
  const loaded = Date.now();
  /** @param {string} name */
  const option = (name) => {
    const at = argv.indexOf(name);
    return at >= 0 ? (argv[at + 1] ?? null) : null;
  };
  const config = option('--config');
  const manifest = option('--manifest');
  return () => {
    const line = {
      step,
      lane: process.env.CUDA_VISIBLE_DEVICES ?? null,
      pid: process.pid,
      start: performance.timeOrigin,
      loaded,
      end: Date.now(),
      config,
      manifest,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
}
