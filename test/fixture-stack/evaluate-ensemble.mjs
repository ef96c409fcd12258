#!/usr/bin/env node
// @ts-check
/**
 * Score the ensemble of a manifest's members ({members: [{config, checkpoint}]}) on one
 * role: the mean gate margin. Fault modes: FIXTURE_FAIL_ENSEMBLE (target: the role).
 */
import { CliArgs, UsageError } from './lib/args.mjs';
import { asRecord, needString } from './lib/check.mjs';
import { runMain } from './lib/cli.mjs';
import { readConfig } from './lib/config.mjs';
import { runEvalJob } from './lib/evaluation.mjs';
import { faultMode } from './lib/faults.mjs';
import { readJson, sha256File } from './lib/files.mjs';
import { readCheckpoint } from './lib/model.mjs';
import { readSplit } from './lib/split.mjs';

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
  const members = asRecord(readJson(manifest, 'manifest'), `manifest ${manifest}`).members;
  if (!Array.isArray(members) || members.length === 0) throw new UsageError(`manifest ${manifest} lists no members`);
  const entries = members.map((member, index) => {
    const what = `manifest ${manifest} member ${index}`;
    const record = asRecord(member, what);
    return { config: needString(record, 'config', what), checkpoint: needString(record, 'checkpoint', what) };
  });
  // Every member is scored with its own config, as a real stack does: each must be there.
  const [first] = entries.map((entry) => readConfig(entry.config));
  if (first === undefined) throw new UsageError(`manifest ${manifest} lists no members`);
  const role = args.need('role');
  await runEvalJob({
    step: 'ENSEMBLE',
    mode: faultMode('ENSEMBLE', [role], undefined),
    role,
    split: await readSplit(first.split),
    checkpoints: entries.map((entry) => readCheckpoint(entry.checkpoint)),
    source: manifest,
    sourceSha256: sha256File(manifest),
    output: args.need('output'),
    scoresOutput: args.need('scores-output'),
    bandScores: args.get('band-scores'),
    sleepMs: first.evalSleepMs,
    extra: { members: entries.length },
  });
});
