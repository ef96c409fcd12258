#!/usr/bin/env node
// @ts-check
/**
 * Score checkpoints on one role of the config's split. Single mode: --checkpoint --output
 * --scores-output [--band-scores]. Batch mode: --jobs J, a JSON list of {checkpoint, output,
 * scores_output, band_scores?, config?, config_sha256?}. Fault modes: fixture_eval or
 * FIXTURE_FAIL_EVALUATE (target: the role).
 */
import process from 'node:process';
import { CliArgs, UsageError } from './lib/args.mjs';
import { asRecord, needString, optionalString } from './lib/check.mjs';
import { runMain } from './lib/cli.mjs';
import { readConfig } from './lib/config.mjs';
import { runEvalJob } from './lib/evaluation.mjs';
import { faultMode } from './lib/faults.mjs';
import { readJson, sha256File } from './lib/files.mjs';
import { readCheckpoint } from './lib/model.mjs';
import { readSplit } from './lib/split.mjs';

/** @typedef {{ checkpoint: string, output: string, scoresOutput: string, bandScores: string | undefined, config: string | undefined, configSha256: string | undefined }} JobSpec */

const SINGLE = ['checkpoint', 'output', 'scores-output', 'band-scores'];
/** @type {Map<string, import('./lib/split.mjs').Split>} */
const splits = new Map();

await runMain('evaluate', async (argv) => {
  const args = new CliArgs(argv, {
    config: 'one',
    role: 'one',
    jobs: 'one',
    checkpoint: 'one',
    output: 'one',
    'scores-output': 'one',
    'band-scores': 'one',
    'score-cache-dir': 'one',
  });
  const role = args.need('role');
  const jobs = args.has('jobs') ? readJobs(args.need('jobs')) : [singleJob(args)];
  if (args.has('jobs') && SINGLE.some((name) => args.has(name))) {
    throw new UsageError(`--jobs cannot be combined with ${SINGLE.map((name) => `--${name}`).join(', ')}`);
  }
  const cache = args.get('score-cache-dir');
  if (cache) process.stdout.write(`score-cache-dir=${cache}\n`);
  for (const job of jobs) {
    const config = readConfig(job.config ?? args.need('config'));
    if (job.configSha256 !== undefined && job.configSha256 !== config.sha256) {
      throw new UsageError(`config ${config.path} does not match its config_sha256`);
    }
    await runEvalJob({
      step: 'EVALUATE',
      mode: faultMode('EVALUATE', [role], config.evalMode),
      role,
      split: await splitAt(config.split),
      checkpoints: [readCheckpoint(job.checkpoint)],
      source: job.checkpoint,
      sourceSha256: sha256File(job.checkpoint),
      output: job.output,
      scoresOutput: job.scoresOutput,
      bandScores: job.bandScores,
      sleepMs: config.evalSleepMs,
    });
  }
});

/**
 * A split by path, read once per process (like a real stack's data set).
 * @param {string} path
 */
async function splitAt(path) {
  const split = splits.get(path) ?? (await readSplit(path));
  splits.set(path, split);
  return split;
}

/**
 * @param {CliArgs} args
 * @returns {JobSpec}
 */
function singleJob(args) {
  return {
    checkpoint: args.need('checkpoint'),
    output: args.need('output'),
    scoresOutput: args.need('scores-output'),
    bandScores: args.get('band-scores'),
    config: undefined,
    configSha256: undefined,
  };
}

/**
 * @param {string} path
 * @returns {JobSpec[]}
 */
function readJobs(path) {
  const list = readJson(path, 'jobs file');
  if (!Array.isArray(list)) throw new UsageError(`jobs file must be a JSON list: ${path}`);
  return list.map((entry, index) => {
    const what = `jobs file ${path} entry ${index}`;
    const job = asRecord(entry, what);
    return {
      checkpoint: needString(job, 'checkpoint', what),
      output: needString(job, 'output', what),
      scoresOutput: needString(job, 'scores_output', what),
      bandScores: optionalString(job, 'band_scores', what),
      config: optionalString(job, 'config', what),
      configSha256: optionalString(job, 'config_sha256', what),
    };
  });
}
