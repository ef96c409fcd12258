// Score checkpoints on one role of the config's split. Single mode: --checkpoint --output
// --scores-output [--band-scores]. Batch mode: --jobs J, a JSON list of {checkpoint, output,
// scores_output, band_scores?, config?, config_sha256?}; the corpus loads once per process.
import process from 'node:process';
import { CliArgs, UsageError } from './lib/args.js';
import { readCheckpoint } from './lib/checkpoint.js';
import { runMain } from './lib/cli.js';
import { readConfig } from './lib/config.js';
import { runEvalJob } from './lib/evaluation.js';
import { sha256File } from './lib/files.js';
import { readJobs, type JobSpec } from './lib/jobs.js';
import { readSplit } from './lib/split.js';
import { SplitData } from './lib/split-data.js';
import { Featurizer } from './lib/vectors.js';

const SINGLE = ['checkpoint', 'output', 'scores-output', 'band-scores'];

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
  if (args.has('jobs') && SINGLE.some((name) => args.has(name))) {
    throw new UsageError(`--jobs cannot be combined with ${SINGLE.map((name) => `--${name}`).join(', ')}`);
  }
  const jobs = args.has('jobs') ? readJobs(args.need('jobs')) : [singleJob(args)];
  const splits = new Map<string, SplitData>();
  const featurizer = new Featurizer();
  for (const job of jobs) {
    const config = await readConfig(job.config ?? args.need('config'));
    if (job.configSha256 !== undefined && job.configSha256 !== config.sha256) {
      throw new UsageError(`config ${config.path} does not match its config_sha256`);
    }
    let data = splits.get(config.split);
    if (data === undefined) {
      data = new SplitData(await readSplit(config.split));
      splits.set(config.split, data);
    }
    runEvalJob({
      role,
      data,
      featurizer,
      models: () => [readCheckpoint(job.checkpoint)],
      source: job.checkpoint,
      sourceSha256: sha256File(job.checkpoint),
      cacheKey: [],
      output: job.output,
      scoresOutput: job.scoresOutput,
      bandScores: job.bandScores,
      scoreCacheDir: args.get('score-cache-dir'),
    });
  }
  if (jobs.length > 1) process.stdout.write(`evaluated ${jobs.length} checkpoints on ${role}\n`);
});

function singleJob(args: CliArgs): JobSpec {
  return {
    checkpoint: args.need('checkpoint'),
    output: args.need('output'),
    scoresOutput: args.need('scores-output'),
    bandScores: args.get('band-scores'),
    config: undefined,
    configSha256: undefined,
  };
}
