import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configText } from '../../src/activities/prepare-run.js';
import { parseCandidates } from '../../src/config/candidates.js';
import { parseJobs } from '../../src/contract/jobs.js';
import { parseManifest } from '../../src/contract/manifest.js';
import { parsePareto } from '../../src/contract/pareto.js';
import { parseReport } from '../../src/contract/report.js';
import { parseScores } from '../../src/contract/scores.js';
import { parseSelection } from '../../src/contract/selection.js';
import { parseValidationEpoch } from '../../src/contract/validation-epoch.js';
import { trainingSeed } from '../../src/rules/seeds.js';

// The example files of docs/contract.md must stay what the loop reads and writes.

function example(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../../docs/contract/${name}`, import.meta.url)), 'utf8');
}

describe('docs/contract examples', () => {
  it('parse with the schemas the loop reads them with', () => {
    expect(parseCandidates(example('candidates.yaml'), 'candidates.yaml').map((c) => c.name)).toEqual([
      'base',
      'wide',
      'student',
    ]);
    expect(parseSelection(example('selection.json'), 'selection.json').checkpoint).toBe('checkpoint-0007.pt');
    expect(parsePareto(example('pareto.json'), 'pareto.json').checkpoints).toHaveLength(3);
    expect(parseValidationEpoch(example('validation-epoch-0007.json'), 'validation-epoch-0007.json')).toHaveProperty(
      'epoch',
      7,
    );
    expect(parseJobs(example('jobs.json'), 'jobs.json')).toHaveLength(2);
    expect(parseJobs(example('teacher-jobs.json'), 'teacher-jobs.json').map((job) => typeof job.config_sha256)).toEqual(
      ['string', 'string'],
    );
    expect(parseReport(example('report.test.json'), 'report.test.json').decided?.rejected_total).toBe(23);
    expect(parseScores(example('scores.test.jsonl'), 'scores.test.jsonl')).toHaveLength(3);
    expect(parseManifest(example('manifest.json'), 'manifest.json').members).toHaveLength(2);
  });

  it('show the job config the loop writes for candidate wide in round 4 of generation 2', () => {
    const base = new Map<unknown, unknown>([
      ['data_root', 'data/20260912_for_training'],
      ['hidden', 256],
      ['lr', 0.001],
      ['epochs', 12],
    ]);
    const wide = parseCandidates(example('candidates.yaml'), 'candidates.yaml').find((c) => c.name === 'wide');
    if (wide === undefined) throw new Error('docs/contract/candidates.yaml has no candidate wide');
    const text = configText(base, wide, 2, '/srv/gate/artifacts/champion-loop/splits/gen-002.yaml', trainingSeed(4));
    expect(text).toBe(example('job-config.yaml'));
  });
});
