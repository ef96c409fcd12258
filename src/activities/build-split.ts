import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { HELD_OUT_FRACTION, VALIDATION_FRACTION } from '../rules/constants.js';
import { padGeneration } from '../rules/ids.js';
import { describeEnd, runLoopStep, type LoopStep } from './support/loop-step.js';
import { exists, moveAside } from './support/move-aside.js';
import { splitLog } from './support/paths.js';
import { stepFailed } from './support/step-errors.js';
import type { BuildSplitInput } from './types.js';

/**
 * The generation's final split, built by three commands if it is missing (docs/behaviour.md,
 * generations and the split): generate development/validation, carve test out of it, carve reserve out of
 * that. Partials of an earlier attempt are moved aside first; the final file appears only by
 * rename, so a present final file is always complete and is reused as is.
 */
export async function buildSplit(input: BuildSplitInput): Promise<{ path: string }> {
  const { paths, commands, generation } = input;
  const splits = join(paths.stateDir, 'splits');
  const stem = `gen-${padGeneration(generation)}`;
  const final = join(splits, `${stem}.yaml`);
  if (await exists(final)) {
    return { path: final };
  }
  const devval = join(splits, `${stem}-devval.yaml`);
  const tested = join(splits, `${stem}-test.yaml`);
  const tmp = join(splits, `${stem}.yaml.tmp`);
  for (const partial of [devval, tested, tmp]) {
    await moveAside(partial);
  }
  await mkdir(splits, { recursive: true });
  const seed = String(input.splitSeed);
  const log = splitLog(paths.stateDir, generation);
  const carve = (from: string, output: string, role: 'test' | 'reserve'): LoopStep => ({
    step: `split carve ${role}`,
    commandKey: 'split_carve',
    command: [
      ...commands.split_carve,
      ...['--split', from],
      ...['--output', output],
      ...['--role', role],
      ...['--test-fraction', HELD_OUT_FRACTION],
      ...['--seed', seed],
    ],
    log,
  });
  const steps: LoopStep[] = [
    {
      step: 'split generate',
      commandKey: 'split_generate',
      command: [
        ...commands.split_generate,
        ...['--data-root', paths.dataRoot],
        ...['--output', devval],
        ...['--seed', seed],
        ...['--validation-fraction', VALIDATION_FRACTION],
      ],
      log,
    },
    carve(devval, tested, 'test'),
    carve(tested, tmp, 'reserve'),
  ];
  for (const step of steps) {
    const result = await runLoopStep(paths, step);
    if (result.exitCode !== 0) {
      throw stepFailed(
        `split generation failed: loop.yaml commands.${step.commandKey} (${step.step}) ended with ${describeEnd(result)}; see ${log}`,
      );
    }
  }
  if (!(await exists(tmp))) {
    throw stepFailed(`split generation failed: the reserve carve exited 0 but wrote no ${tmp}; see ${log}`);
  }
  await rename(tmp, final);
  return { path: final };
}
