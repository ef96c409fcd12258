#!/usr/bin/env node
// @ts-check
/**
 * Train a fixture model: per epoch a checkpoint, validation metrics and validation scores,
 * then selection.json and pareto.json. Fault modes come from fixture_train or FIXTURE_FAIL_TRAIN.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { CliArgs, UsageError } from './lib/args.mjs';
import { runMain } from './lib/cli.mjs';
import { readConfig } from './lib/config.mjs';
import { crash, fail, faultMode, hang, sleep } from './lib/faults.mjs';
import { jsonlText, jsonText, readJson, writeAtomic, writeText } from './lib/files.mjs';
import { NO_CHECKPOINT } from './lib/markers.mjs';
import { epochModel, readTeacher, scoreItems } from './lib/model.mjs';
import { counts, f1Scores, gateAuc } from './lib/metrics.mjs';
import { paretoEpochs, selectEpoch } from './lib/selection.mjs';
import { readSplit, roleItems } from './lib/split.mjs';

await runMain('train', async (argv) => {
  const args = new CliArgs(argv, {
    config: 'one',
    'output-root': 'one',
    'run-id': 'one',
    'score-cache-dir': 'one',
    'resume-from': 'one',
  });
  const config = readConfig(args.need('config'));
  const runId = args.need('run-id');
  const runDir = join(args.need('output-root'), runId);
  const mode = faultMode('TRAIN', [runId], config.trainMode);
  if (mode === 'fail') {
    await waitForRelease(config.waitFor);
    fail('train');
  }
  const split = await readSplit(config.split);
  const validation = roleItems(split, 'validation');
  const teacher = config.softTargets === undefined ? null : readTeacher(config.softTargets, split.dataset);
  const sleepMs = mode === 'slow' && config.sleepMs === 0 ? 1000 : config.sleepMs;
  const cache = args.get('score-cache-dir');
  process.stdout.write(
    `train ${runId} epochs=${config.epochs} quality=${config.quality} seed=${config.seed}` +
      `${teacher ? ` teacher=${config.softTargets}` : ''}${cache ? ` score-cache-dir=${cache}` : ''}\n`,
  );
  mkdirSync(runDir, { recursive: true });
  if (mode === 'daemon') {
    // A helper in a session of its own (setsid), out of the step's process group, as some launchers start one.
    const daemon = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
    daemon.unref();
    writeText(join(runDir, 'daemon.pid'), `${daemon.pid}\n`);
    process.stdout.write(`train: started daemon pid ${daemon.pid} outside its process group (fixture mode daemon)\n`);
    await hang('train');
  }
  // --resume-from CHECKPOINT: epochs up to the checkpoint's are kept, as the lost attempt left them.
  const epochs = resumedEpochs(runDir, args.get('resume-from'));
  if (epochs.length > 0) process.stdout.write(`resuming after epoch ${epochs.length}\n`);
  for (let epoch = epochs.length + 1; epoch <= config.epochs; epoch += 1) {
    await sleep(sleepMs);
    const checkpoint = epochModel(config, epoch, teacher);
    const stem = String(epoch).padStart(4, '0');
    writeText(join(runDir, `checkpoint-${stem}.pt`), jsonText(checkpoint));
    const rows = scoreItems([checkpoint], validation, split.dataset.salt);
    writeText(join(runDir, `validation-epoch-${stem}.scores.jsonl`), jsonlText(rows));
    const c = counts(rows);
    const metrics = {
      epoch,
      fail_to_pass_count: c.fail_to_pass_count,
      pass_to_fail_count: c.pass_to_fail_count,
      macro_f1: f1Scores(c).macro_f1,
      gate_auc: gateAuc(rows),
    };
    writeText(join(runDir, `validation-epoch-${stem}.json`), jsonText(metrics));
    epochs.push(metrics);
    process.stdout.write(
      `epoch ${epoch}/${config.epochs} val f2p=${c.fail_to_pass_count} p2f=${c.pass_to_fail_count} auc=${metrics.gate_auc}\n`,
    );
    if (mode === 'crash' && epoch === Math.max(1, Math.floor(config.epochs / 2))) await crash('train');
    if (mode === 'hang') await hang('train');
  }
  await waitForRelease(config.waitFor);
  if (mode === 'no_eligible_checkpoint') {
    process.stdout.write(`${NO_CHECKPOINT}\n`);
    process.exit(1);
  }
  const pareto = paretoEpochs(epochs).map((epoch) => ({ checkpoint: checkpointName(epoch) }));
  writeAtomic(join(runDir, 'pareto.json'), jsonText({ checkpoints: pareto }));
  const best = selectEpoch(epochs);
  const selection = {
    checkpoint: checkpointName(best.epoch),
    epoch: best.epoch,
    false_negatives: best.fail_to_pass_count,
  };
  if (mode === 'malformed_selection') writeText(join(runDir, 'selection.json'), '{"checkpoint": ');
  else if (mode !== 'missing_selection') writeAtomic(join(runDir, 'selection.json'), jsonText(selection));
  process.stdout.write(`selected ${selection.checkpoint} pareto=${pareto.map((p) => p.checkpoint).join(',')}\n`);
});

/**
 * The validation metrics of every epoch up to the one of the checkpoint to resume from ([] for none).
 * @param {string} runDir
 * @param {string | undefined} checkpoint
 * @returns {import('./lib/selection.mjs').EpochMetrics[]}
 */
function resumedEpochs(runDir, checkpoint) {
  if (checkpoint === undefined) return [];
  const match = /checkpoint-(\d+)\.pt$/.exec(checkpoint);
  if (match?.[1] === undefined || !existsSync(checkpoint))
    throw new UsageError(`--resume-from ${checkpoint}: no checkpoint`);
  const last = Number.parseInt(match[1], 10);
  return Array.from({ length: last }, (_, index) => {
    const file = join(runDir, `validation-epoch-${String(index + 1).padStart(4, '0')}.json`);
    // The trainer's own files, written by an earlier attempt of it.
    return /** @type {import('./lib/selection.mjs').EpochMetrics} */ (readJson(file, 'validation metrics'));
  });
}

/** @param {number} epoch */
function checkpointName(epoch) {
  return `checkpoint-${String(epoch).padStart(4, '0')}.pt`;
}

/**
 * fixture_wait_for: wait until the file exists (a test decides when the run ends).
 * @param {string | undefined} file
 */
async function waitForRelease(file) {
  if (file === undefined) return;
  process.stdout.write(`waiting for ${file}\n`);
  while (!existsSync(file)) await sleep(100);
}
