// @ts-check
/**
 * Fault injection. A step's mode comes from FIXTURE_FAIL_<STEP> when that names one for
 * this invocation, else from the config key (fixture_train / fixture_eval), else `ok`.
 * The env value is a comma list of `mode` or `mode:target` entries; an entry with a target
 * applies only when the target is one of the invocation's tags (e.g. the evaluated role).
 */
import process from 'node:process';
import { setInterval } from 'node:timers';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { UsageError } from './args.mjs';

/** @typedef {'SPLIT' | 'TRAIN' | 'EVALUATE' | 'ENSEMBLE' | 'TEACHER' | 'PACKAGE'} Step */

const GENERIC = ['ok', 'fail', 'hang', 'crash'];
const EVALUATE = ['ok', 'fail', 'hang', 'malformed_report', 'no_report', 'partial', 'slow', 'degraded'];

/** @type {Record<Step, readonly string[]>} */
const MODES = {
  SPLIT: GENERIC,
  TRAIN: [...GENERIC, 'no_eligible_checkpoint', 'malformed_selection', 'missing_selection', 'slow', 'daemon'],
  EVALUATE,
  ENSEMBLE: EVALUATE,
  TEACHER: GENERIC,
  PACKAGE: GENERIC,
};

/**
 * @param {Step} step
 * @param {readonly string[]} tags what this invocation is (role, run id, split stage...)
 * @param {unknown} configured the config key's value, if any
 * @returns {string}
 */
export function faultMode(step, tags, configured) {
  const entries = (process.env[`FIXTURE_FAIL_${step}`] ?? '').split(',').filter((entry) => entry.trim());
  for (const entry of entries) {
    const [mode = '', target] = entry.trim().split(':', 2);
    if (target === undefined || tags.includes(target)) return checked(step, mode);
  }
  if (configured === undefined || configured === null) return 'ok';
  return checked(step, typeof configured === 'string' ? configured : JSON.stringify(configured));
}

/**
 * @param {Step} step
 * @param {string} mode
 */
function checked(step, mode) {
  if (!MODES[step].includes(mode)) {
    throw new UsageError(`unknown fixture mode ${mode} for ${step.toLowerCase()}: use ${MODES[step].join('|')}`);
  }
  return mode;
}

/** Exit 3 with a message on stderr. @param {string} step @returns {never} */
export function fail(step) {
  process.stderr.write(`${step.toLowerCase()}: injected failure (fixture mode fail)\n`);
  process.exit(3);
}

/**
 * Kill this process with SIGKILL, as an OOM killer would.
 * @param {string} step
 * @param {string} [mode] the fault mode that asked for it
 * @returns {Promise<never>}
 */
export async function crash(step, mode = 'crash') {
  process.stdout.write(`${step.toLowerCase()}: killing itself (fixture mode ${mode})\n`);
  process.kill(process.pid, 'SIGKILL');
  return hang(step);
}

/** Never finish; default signal handling stays, so SIGTERM or SIGKILL ends it. @param {string} step @returns {Promise<never>} */
export function hang(step) {
  process.stdout.write(`${step.toLowerCase()}: hanging (fixture mode hang)\n`);
  setInterval(() => undefined, 60_000);
  return new Promise(() => undefined);
}

/** @param {number} ms */
export async function sleep(ms) {
  if (ms > 0) await sleepFor(ms);
}

/** Print FIXTURE_MEGABYTES MB of filler to stdout (to exercise log handling). */
export function emitMegabytes() {
  const megabytes = Number(process.env.FIXTURE_MEGABYTES ?? 0);
  if (!(megabytes > 0)) return;
  const line = `${'filler '.repeat(146)}x\n`;
  const block = line.repeat(Math.floor(1048576 / line.length));
  const whole = Math.floor(megabytes);
  for (let i = 0; i < whole; i += 1) process.stdout.write(block);
  const rest = Math.round(((megabytes - whole) * 1048576) / line.length);
  if (rest > 0) process.stdout.write(line.repeat(rest));
}
