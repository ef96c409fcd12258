import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  collectCheckpoints,
  completeEpochs,
  epochsRun,
  resumePoint,
  selectedCheckpoint,
  validationGateAuc,
} from '../../../src/activities/support/run-dir.js';
import { fixtureLoop } from '../fixture-loop.js';

async function runDir(files: Record<string, string>): Promise<string> {
  const { workdir } = await fixtureLoop();
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(workdir, name), text);
  }
  return workdir;
}

describe('run directory', () => {
  it('finds the complete epochs of a lost attempt, newest first: a checkpoint and its validation metrics', () => {
    expect(
      completeEpochs([
        'checkpoint-0001.pt',
        'validation-epoch-0001.json',
        'validation-epoch-0001.scores.jsonl',
        'checkpoint-0002.pt',
        'validation-epoch-0002.json',
        // Cut short: the checkpoint without its metrics; a temp file; a moved-aside one; a folder-style checkpoint.
        'checkpoint-0003.pt',
        '.checkpoint-0004.pt.123.tmp',
        'validation-epoch-0004.json',
        'checkpoint-0005.pt.aside-1',
        'validation-epoch-0005.json',
        'checkpoint-0010',
        'validation-epoch-0010.json',
      ]),
    ).toEqual([
      { epoch: 10, checkpoint: 'checkpoint-0010' },
      { epoch: 2, checkpoint: 'checkpoint-0002.pt' },
      { epoch: 1, checkpoint: 'checkpoint-0001.pt' },
    ]);
    expect(completeEpochs(['selection.json', 'validation-epoch-0001.json', 'model-0001.pt'])).toEqual([]);
  });

  it('resumes from the newest epoch whose metrics parse: one torn by a kill mid-write is passed over', async () => {
    const dir = await runDir({
      'checkpoint-0001.pt': '{}',
      'validation-epoch-0001.json': '{"epoch": 1}',
      'checkpoint-0002.pt': '{}',
      'validation-epoch-0002.json': '{"epo',
    });
    expect(await resumePoint(dir)).toEqual({ epoch: 1, checkpoint: 'checkpoint-0001.pt' });
    expect(await resumePoint(await runDir({ 'checkpoint-0001.pt': '{}' }))).toBeNull();
  });

  it('collects pareto checkpoints first, then the selected one, without duplicates', async () => {
    const dir = await runDir({
      'pareto.json': JSON.stringify({ checkpoints: [{ checkpoint: 'c-0003.pt' }, { checkpoint: 'c-0001.pt' }] }),
      'selection.json': JSON.stringify({ checkpoint: 'c-0001.pt', false_negatives: 4 }),
      'c-0001.pt': '{}',
      'c-0003.pt': '{}',
    });
    expect(await collectCheckpoints(dir)).toEqual(['c-0003.pt', 'c-0001.pt']);
  });

  it('collects the selected checkpoint alone when there is no pareto.json', async () => {
    const dir = await runDir({ 'selection.json': JSON.stringify({ checkpoint: 'c-0002.pt' }), 'c-0002.pt': '{}' });
    expect(await collectCheckpoints(dir)).toEqual(['c-0002.pt']);
  });

  it('refuses a checkpoint that is not a file in the run directory, naming the file that lists it', async () => {
    const dir = await runDir({ 'selection.json': JSON.stringify({ checkpoint: 'c-0002.pt' }) });
    await expect(collectCheckpoints(dir)).rejects.toThrow(
      `${join(dir, 'selection.json')} names checkpoint c-0002.pt, which is not a file in ${dir}`,
    );
  });

  it('refuses a checkpoint name without an epoch suffix', async () => {
    const dir = await runDir({ 'selection.json': JSON.stringify({ checkpoint: 'best.pt' }), 'best.pt': '{}' });
    await expect(collectCheckpoints(dir)).rejects.toThrow(
      /checkpoint: a checkpoint file name whose stem ends in -NNNN/,
    );
  });

  it('counts validation epochs without their scores files', async () => {
    const dir = await runDir({
      'validation-epoch-0001.json': '{}',
      'validation-epoch-0002.json': '{}',
      'validation-epoch-0002.scores.jsonl': '',
    });
    expect(await epochsRun(dir)).toBe(2);
    expect(await epochsRun(join(dir, 'missing'))).toBe(0);
  });

  it('computes the selected checkpoint validation gate AUC, null when its scores are missing or broken', async () => {
    const scores = [
      { margin: 0.9, target: 1 },
      { margin: 0.2, target: 0 },
      { margin: -0.4, target: 1 },
      { margin: -0.8, target: 0 },
    ];
    const dir = await runDir({
      'selection.json': JSON.stringify({ checkpoint: 'c-0007.pt', false_negatives: 2 }),
      'validation-epoch-0007.scores.jsonl': scores.map((row) => JSON.stringify(row)).join('\n'),
      'validation-epoch-0003.scores.jsonl': '{"margin": "high"}\n',
    });
    expect(await selectedCheckpoint(dir)).toEqual({
      checkpoint: 'c-0007.pt',
      falseNegatives: 2,
      validationGateAuc: 0.75,
    });
    expect(await validationGateAuc(dir, 'c-0003.pt')).toBeNull();
    expect(await validationGateAuc(dir, 'c-0005.pt')).toBeNull();
  });
});
