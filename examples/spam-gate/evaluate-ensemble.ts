// Score the ensemble of a manifest's members ({members: [{config, checkpoint}]}) on one role:
// the mean gate margin of the members.
import { CliArgs, UsageError } from './lib/args.js';
import { readCheckpoint } from './lib/checkpoint.js';
import { runMain } from './lib/cli.js';
import { readConfig } from './lib/config.js';
import { runEvalJob } from './lib/evaluation.js';
import { sha256File } from './lib/files.js';
import { readManifest } from './lib/manifest.js';
import { readSplit } from './lib/split.js';
import { SplitData } from './lib/split-data.js';
import { Featurizer } from './lib/vectors.js';

await runMain('evaluate-ensemble', async (argv) => {
  const args = new CliArgs(argv, {
    manifest: 'one',
    output: 'one',
    role: 'one',
    'scores-output': 'one',
    'band-scores': 'one',
    'score-cache-dir': 'one',
  });
  const manifest = args.need('manifest');
  const members = readManifest(manifest);
  const configs = await Promise.all(members.map((member) => readConfig(member.config)));
  const splitPath = configs[0]?.split ?? '';
  // Members scored on different splits would average margins of different mails.
  const stray = configs.find((config) => config.split !== splitPath);
  if (stray !== undefined)
    throw new UsageError(`manifest ${manifest}: member config ${stray.path} uses another split than ${splitPath}`);
  runEvalJob({
    role: args.need('role'),
    data: new SplitData(await readSplit(splitPath)),
    featurizer: new Featurizer(),
    models: () => members.map((member) => readCheckpoint(member.checkpoint)),
    source: manifest,
    sourceSha256: sha256File(manifest),
    cacheKey: members.map((member) => sha256File(member.checkpoint)),
    output: args.need('output'),
    scoresOutput: args.need('scores-output'),
    bandScores: args.get('band-scores'),
    scoreCacheDir: args.get('score-cache-dir'),
    extra: { members: members.length },
  });
});
