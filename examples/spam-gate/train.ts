// Train one run: logistic regression on hashed mail features, epoch by epoch. Per epoch a
// checkpoint and its validation metrics and scores; then selection.json and pareto.json.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { CliArgs } from './lib/args.js';
import { checkpointText } from './lib/checkpoint.js';
import { runMain } from './lib/cli.js';
import { readConfig } from './lib/config.js';
import { jsonlText, jsonText, writeAtomic } from './lib/files.js';
import { auc, counts, f1Scores } from './lib/metrics.js';
import { logLoss, snapshot } from './lib/model.js';
import { createOptimizer } from './lib/optimizer.js';
import { mix32, round6, shuffledIndices } from './lib/random.js';
import { checkpointName, NO_CHECKPOINT, validationMetricsName, validationScoresName } from './lib/run-files.js';
import { scoreMessages } from './lib/scoring.js';
import { paretoEpochs, selectEpoch } from './lib/selection.js';
import { readTeacher, softTarget } from './lib/soft-targets.js';
import { readSplit } from './lib/split.js';
import { SplitData } from './lib/split-data.js';
import { trainEpoch, type Example } from './lib/trainer.js';
import { Featurizer } from './lib/vectors.js';

await runMain('train', async (argv) => {
  const args = new CliArgs(argv, { config: 'one', 'output-root': 'one', 'run-id': 'one', 'score-cache-dir': 'one' });
  const config = await readConfig(args.need('config'));
  const runId = args.need('run-id');
  const runDir = join(args.need('output-root'), runId);
  const teacher = config.gate_soft_targets === undefined ? null : readTeacher(config.gate_soft_targets);
  const data = new SplitData(await readSplit(config.split));
  const featurizer = new Featurizer();
  const development = data.messages('development');
  const validation = data.messages('validation');
  const vectors = featurizer.vectors(development, config.features);
  const examples: Example[] = development.map((message, i) => ({
    vector: vectors[i] ?? { indices: new Int32Array(0), values: new Float64Array(0) },
    target: softTarget(teacher, message.id, message.target, config.soft_target_weight),
    weight: message.target === 0 ? config.class_weight_fail : 1,
  }));
  const { features } = config;
  process.stdout.write(
    `train ${runId} development=${development.length} validation=${validation.length} ngram=${features.ngram}` +
      ` hash_dimension=${features.hash_dimension} optimizer=${config.optimizer} lr=${config.learning_rate} l2=${config.l2}` +
      ` epochs=${config.epochs} seed=${config.seed}${teacher === null ? '' : ` teacher=${teacher.path}`}\n`,
  );
  mkdirSync(runDir, { recursive: true });
  const params = new Float64Array(features.hash_dimension + 1);
  const optimizer = createOptimizer(
    { kind: config.optimizer, learningRate: config.learning_rate, l2: config.l2 },
    params.length,
  );
  const provenance = {
    run_id: runId,
    seed: config.seed,
    config_sha256: config.sha256,
    teacher:
      teacher === null ? null : { path: teacher.path, sha256: teacher.sha256, weight: config.soft_target_weight },
  };
  const epochs = [];
  for (let epoch = 1; epoch <= config.epochs; epoch += 1) {
    const trainLoss = trainEpoch(
      params,
      optimizer,
      examples,
      shuffledIndices(examples.length, mix32(config.seed, epoch)),
      config.batch_size,
    );
    const model = snapshot(params, features);
    writeAtomic(join(runDir, checkpointName(epoch)), checkpointText(model, epoch, provenance));
    const rows = scoreMessages([model], validation, featurizer);
    writeAtomic(join(runDir, validationScoresName(epoch)), jsonlText(rows));
    const c = counts(rows);
    const metrics = {
      epoch,
      fail_to_pass_count: c.fail_to_pass_count,
      pass_to_fail_count: c.pass_to_fail_count,
      pass_count: c.pass_count,
      fail_count: c.fail_count,
      ...f1Scores(c),
      gate_auc: auc(rows),
      train_loss: round6(trainLoss),
      validation_loss: round6(
        rows.reduce((sum, row) => sum + logLoss(row.margin, row.target), 0) / Math.max(1, rows.length),
      ),
    };
    writeAtomic(join(runDir, validationMetricsName(epoch)), jsonText(metrics));
    epochs.push(metrics);
    process.stdout.write(
      `epoch ${epoch}/${config.epochs} loss=${metrics.train_loss} val f2p=${c.fail_to_pass_count} p2f=${c.pass_to_fail_count}` +
        ` auc=${metrics.gate_auc}\n`,
    );
  }
  const eligible = epochs.filter((e) => e.gate_auc !== null && e.gate_auc >= config.min_validation_auc);
  if (eligible.length === 0) {
    process.stdout.write(`${NO_CHECKPOINT}\n`);
    process.exitCode = 1;
    return;
  }
  const pareto = paretoEpochs(eligible).map((epoch) => ({ checkpoint: checkpointName(epoch) }));
  writeAtomic(join(runDir, 'pareto.json'), jsonText({ checkpoints: pareto }));
  const best = selectEpoch(eligible);
  const selection = {
    checkpoint: checkpointName(best.epoch),
    epoch: best.epoch,
    false_negatives: best.fail_to_pass_count,
  };
  writeAtomic(join(runDir, 'selection.json'), jsonText(selection));
  process.stdout.write(`selected ${selection.checkpoint} pareto=${pareto.map((p) => p.checkpoint).join(',')}\n`);
});
