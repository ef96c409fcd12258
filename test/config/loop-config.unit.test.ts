import type { Duration } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { DEFAULT_COMMANDS, parseLoopConfig } from '../../src/config/loop-config.js';
import { thrown } from '../helpers/files-and-errors.js';

const MINIMAL = ['data_root: data', 'candidates: candidates.yaml', 'lanes:', '  - {host: gpu-a, device: 0}', ''].join(
  '\n',
);

function problemWith(text: string): ConfigError {
  return thrown(ConfigError, () => parseLoopConfig(text, 'loop.yaml'));
}

describe('parseLoopConfig', () => {
  it('fills every default the seed has for its flags', () => {
    const config = parseLoopConfig(MINIMAL, 'loop.yaml');
    expect(config).toEqual({
      state_dir: 'artifacts/champion-loop',
      runs_root: 'artifacts/training-runs',
      data_root: 'data',
      candidates: 'candidates.yaml',
      parallel: 5,
      base_seed: 20261200,
      saturation_evals: 200,
      max_reserve_checks: 3,
      teacher_after_round: 0,
      teacher_path: 'artifacts/teachers/gen-{generation}/insample.jsonl',
      reuse_teacher_preparation: false,
      band_decisions: false,
      score_cache_dir: null,
      min_free_gib: 30,
      no_checkpoint_marker: 'no eligible checkpoint',
      lanes: [{ host: 'gpu-a', device: 0, slots: 1, min_free_gib: 30 }],
      commands: {
        train: ['python3', '-m', 'raina_laya.choice_train'],
        evaluate: ['python3', '-m', 'raina_laya.choice_evaluate'],
        evaluate_ensemble: ['python3', '-m', 'raina_laya.ensemble_evaluate'],
        split_generate: ['python3', 'scripts/generate_folder_grade_split.py'],
        split_carve: ['python3', 'scripts/carve_test_split.py'],
        teacher_scores: ['python3', 'scripts/teacher_scores.py'],
        package: ['python3', 'scripts/package_champion.py'],
      },
      timeouts: {
        train: '7d',
        no_progress: '2h',
        evaluate: '6h',
        split: '1h',
        package: '2h',
        heartbeat: '2m',
        schedule_to_start: '10m',
      },
      retries: { train: 3, evaluate: 3, package: 1, lost_lane: 10 },
    });
  });

  it('takes an artifacts: store by s3:// URL, and refuses a URL that is not one or an endpoint with credentials in it', () => {
    const config = parseLoopConfig(
      `${MINIMAL}artifacts: {url: s3://ml-artifacts/loops, endpoint: http://s3.internal:8333}\n`,
      'loop.yaml',
    );
    expect(config.artifacts).toEqual({ url: 's3://ml-artifacts/loops', endpoint: 'http://s3.internal:8333' });
    expect(parseLoopConfig(MINIMAL, 'loop.yaml').artifacts).toBeUndefined();
    expect(problemWith(`${MINIMAL}artifacts: {url: /data/artifacts}\n`).message).toContain(
      'artifacts.url: an s3:// URL of a bucket and an optional prefix, e.g. s3://ml-artifacts/champion-loop',
    );
    expect(
      problemWith(`${MINIMAL}artifacts: {url: s3://bkt/p, endpoint: 'http://key:secret@s3.internal'}\n`).message,
    ).toContain(
      'artifacts.endpoint: a URL without credentials: they come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE',
    );
    expect(problemWith(`${MINIMAL}artifacts: {url: s3://bkt/p, bucket: b}\n`).message).toContain('bucket');
    expect(
      parseLoopConfig(`${MINIMAL}artifacts: {url: s3://bkt/p, keep_local_gib: 0}\n`, 'loop.yaml').artifacts,
    ).toEqual({ url: 's3://bkt/p', keep_local_gib: 0 });
    expect(problemWith(`${MINIMAL}artifacts: {url: s3://bkt/p, keep_local_gib: -1}\n`).message).toContain(
      'artifacts.keep_local_gib: a number of GiB, 0 or more',
    );
    expect(problemWith(`${MINIMAL}artifacts: {url: s3://bkt/p, keep_local_gib: lots}\n`).message).toContain(
      'artifacts.keep_local_gib: a number of GiB, e.g. 50',
    );
  });

  it('gives timeouts Temporal takes as they are', () => {
    const timeouts: Record<string, Duration> = parseLoopConfig(MINIMAL, 'loop.yaml').timeouts;
    expect(timeouts['heartbeat']).toBe('2m');
  });

  it('gives every load its own copy of the default commands', () => {
    const first = parseLoopConfig(MINIMAL, 'loop.yaml');
    first.commands.train.push('--oops');
    expect(parseLoopConfig(MINIMAL, 'loop.yaml').commands.train).toEqual([...DEFAULT_COMMANDS.train]);
  });

  it('keeps a lane memory floor of its own and gives the others the loop one', () => {
    const config = parseLoopConfig(
      'data_root: d\ncandidates: c.yaml\nmin_free_gib: 20\nlanes:\n  - {host: a, device: 0}\n  - {host: a, device: 1, slots: 2, min_free_gib: 45}\n',
      'loop.yaml',
    );
    expect(config.lanes).toEqual([
      { host: 'a', device: 0, slots: 1, min_free_gib: 20 },
      { host: 'a', device: 1, slots: 2, min_free_gib: 45 },
    ]);
  });

  it("gives each lane its own usd_per_gpu_hour or the loop's, and none where neither says; a negative price is refused", () => {
    const lanes = '  - {host: a, device: 0}\n  - {host: a, device: 1, usd_per_gpu_hour: 3.5}\n';
    const priced = parseLoopConfig(
      `data_root: d\ncandidates: c.yaml\nusd_per_gpu_hour: 2\nlanes:\n${lanes}`,
      'loop.yaml',
    );
    expect(priced.lanes.map((lane) => lane.usd_per_gpu_hour)).toEqual([2, 3.5]);
    const unpriced = parseLoopConfig(`data_root: d\ncandidates: c.yaml\nlanes:\n${lanes}`, 'loop.yaml');
    expect(unpriced.lanes.map((lane) => lane.usd_per_gpu_hour)).toEqual([undefined, 3.5]);
    expect('usd_per_gpu_hour' in (unpriced.lanes[0] ?? {})).toBe(false);
    expect(problemWith(`${MINIMAL}usd_per_gpu_hour: -1\n`).message).toContain(
      'usd_per_gpu_hour: a price in US dollars per GPU-hour (a number >= 0) (got -1)',
    );
  });

  it('takes null as the package command to mean no packaging', () => {
    expect(parseLoopConfig(`${MINIMAL}commands: {package: null}\n`, 'loop.yaml').commands.package).toBeNull();
  });

  it('keeps commands given as lists of arguments', () => {
    const config = parseLoopConfig(
      `${MINIMAL}commands:\n  train: [.venv/bin/python, -m, raina_laya.choice_train]\n`,
      'loop.yaml',
    );
    expect(config.commands.train).toEqual(['.venv/bin/python', '-m', 'raina_laya.choice_train']);
    expect(config.commands.evaluate).toEqual([...DEFAULT_COMMANDS.evaluate]);
  });

  it('names the missing required fields', () => {
    const error = problemWith('lanes:\n  - {host: a, device: 0}\n');
    expect(error.problems.map((problem) => problem.field)).toEqual(['data_root', 'candidates']);
    expect(error.message).toBe(
      'loop.yaml: data_root: a directory path to the training data (got nothing: the field is missing) (and 1 more problem)',
    );
  });

  it('refuses an unknown key and suggests the field it was meant to be', () => {
    const error = problemWith(`${MINIMAL}paralel: 4\n`);
    expect(error.message).toBe('loop.yaml:5:1: paralel: no such field; did you mean "parallel"? (got 4)');
  });

  it('refuses an unknown key inside a lane', () => {
    const error = problemWith('data_root: d\ncandidates: c.yaml\nlanes:\n  - {host: a, device: 0, gpus: 2}\n');
    expect(error.field).toBe('lanes.0.gpus');
    expect(error.message).toContain('no such field');
  });

  it('refuses a command written as a shell string and shows the list form', () => {
    const error = problemWith(`${MINIMAL}commands:\n  train: python -m raina_laya.choice_train\n`);
    expect(error.field).toBe('commands.train');
    expect(error.message).toBe(
      'loop.yaml:6:3: commands.train: a list of arguments, e.g. [python, -m, raina_laya.choice_train], not a shell string (got "python -m raina_laya.choice_train")',
    );
  });

  it('refuses an empty command and a shell-string package command', () => {
    const error = problemWith(`${MINIMAL}commands:\n  evaluate: []\n  package: python3 scripts/package_champion.py\n`);
    expect(error.describeAll().split('\n')).toEqual([
      'loop.yaml:6:3: commands.evaluate: a non-empty list of arguments, e.g. [python, -m, raina_laya.choice_train] (got an empty list)',
      'loop.yaml:7:3: commands.package: a list of arguments, e.g. [python, -m, raina_laya.choice_train], not a shell string, or null for no packaging (got "python3 scripts/package_champion.py")',
    ]);
  });

  it('refuses wrong types with the field path and what was expected', () => {
    const error = problemWith(
      `${MINIMAL}parallel: many\nbase_seed: 1.5\nband_decisions: yes\nscore_cache_dir: 7\nmin_free_gib: -1\nreuse_teacher_preparation: 1\n`,
    );
    expect(error.describeAll().split('\n')).toEqual([
      'loop.yaml:5:1: parallel: an integer >= 1 (got "many")',
      'loop.yaml:6:1: base_seed: an integer seed (got 1.5)',
      'loop.yaml:7:1: band_decisions: true or false (got "yes")',
      'loop.yaml:8:1: score_cache_dir: a directory path, or null for no score cache (got 7)',
      'loop.yaml:9:1: min_free_gib: free GPU memory in GiB (a number >= 0) (got -1)',
      'loop.yaml:10:1: reuse_teacher_preparation: true or false (got 1)',
    ]);
  });

  it('takes max_run_events of 50 or more, absent by default so a default config stays as it was', () => {
    expect(parseLoopConfig(MINIMAL, 'loop.yaml')).not.toHaveProperty('max_run_events');
    expect(parseLoopConfig(`${MINIMAL}max_run_events: 2500\n`, 'loop.yaml').max_run_events).toBe(2500);
    expect(problemWith(`${MINIMAL}max_run_events: 10\n`).message).toBe(
      'loop.yaml:5:1: max_run_events: an integer >= 50 (got 10)',
    );
  });

  it('refuses lanes that are missing, empty or out of range', () => {
    expect(problemWith('data_root: d\ncandidates: c.yaml\n').message).toBe(
      'loop.yaml: lanes: a non-empty list of lanes (one per GPU), e.g. [{host: gpu-a, device: 0}] (got nothing: the field is missing)',
    );
    expect(problemWith('data_root: d\ncandidates: c.yaml\nlanes: []\n').field).toBe('lanes');
    const error = problemWith(
      'data_root: d\ncandidates: c.yaml\nlanes:\n  - {host: a, device: 0}\n  - {host: "b c", device: -1, slots: 0}\n',
    );
    expect(error.describeAll().split('\n')).toEqual([
      "loop.yaml:5:6: lanes.1.host: a host name: letters, digits, '_', '-', '.' (got \"b c\")",
      'loop.yaml:5:19: lanes.1.device: a GPU index (an integer >= 0) (got -1)',
      'loop.yaml:5:31: lanes.1.slots: a number of concurrent jobs (an integer >= 1) (got 0)',
    ]);
  });

  it('refuses a lane without a host', () => {
    expect(problemWith('data_root: d\ncandidates: c.yaml\nlanes:\n  - {device: 0}\n').message).toBe(
      "loop.yaml:4:5: lanes.0.host: a host name: letters, digits, '_', '-', '.' (got nothing: the field is missing)",
    );
  });

  it('refuses two lanes on the same GPU of the same host', () => {
    const error = problemWith(
      'data_root: d\ncandidates: c.yaml\nlanes:\n  - {host: a, device: 0}\n  - {host: a, device: 1}\n  - {host: a, device: 0, slots: 2}\n',
    );
    expect(error.field).toBe('lanes.2');
    expect(error.message).toContain('a GPU no other lane uses (lanes.0 is also host "a", device 0)');
  });

  it('accepts the same device number on two hosts', () => {
    const config = parseLoopConfig(
      'data_root: d\ncandidates: c.yaml\nlanes:\n  - {host: a, device: 0}\n  - {host: b, device: 0}\n',
      'loop.yaml',
    );
    expect(config.lanes).toHaveLength(2);
  });

  it('takes timeouts.no_progress as a duration and refuses anything else', () => {
    expect(parseLoopConfig(`${MINIMAL}timeouts: {train: 30d, no_progress: 45m}\n`, 'loop.yaml').timeouts).toMatchObject(
      { train: '30d', no_progress: '45m' },
    );
    expect(problemWith(`${MINIMAL}timeouts: {no_progress: 2 hours}\n`).message).toBe(
      "loop.yaml:5:12: timeouts.no_progress: a duration like '500ms', '90s', '10m', '24h' or '2d' (got \"2 hours\")",
    );
  });

  it('refuses a duration without a unit and unknown keys under timeouts and retries', () => {
    const error = problemWith(`${MINIMAL}timeouts: {train: 90, evaluate: 1.5h, trian: 1h}\nretries: {train: 0}\n`);
    expect(error.describeAll().split('\n')).toEqual([
      "loop.yaml:5:12: timeouts.train: a duration like '500ms', '90s', '10m', '24h' or '2d' (got 90)",
      "loop.yaml:5:23: timeouts.evaluate: a duration like '500ms', '90s', '10m', '24h' or '2d' (got \"1.5h\")",
      'loop.yaml:5:39: timeouts.trian: no such field; did you mean "train"? (got "1h")',
      'loop.yaml:6:11: retries.train: a maximum number of attempts (an integer >= 1) (got 0)',
    ]);
  });

  it('refuses an empty file and a file that is not a mapping', () => {
    expect(problemWith('').message).toBe('loop.yaml: a mapping of loop settings (got an empty document)');
    expect(problemWith('- a\n- b\n').message).toBe('loop.yaml:1:1: a mapping of loop settings (got a list of 2 items)');
  });

  it('names the line and column of broken YAML', () => {
    const error = problemWith('data_root: d\ncandidates: [c.yaml\nlanes: []\n');
    expect(error.kind).toBe('syntax');
    expect(error.message).toMatch(/^loop\.yaml:\d+:\d+: valid YAML \(got a syntax error: /);
  });
});
