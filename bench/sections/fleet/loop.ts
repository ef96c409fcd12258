// One fleet generation's loop folder: one candidate per slot, the bench stack's steps behind the
// sleeping, tracing wrapper (bench/lib/fleet-step.sh); and its steps read back from the lane
// processes' trace files, which every loop on the server writes to.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { loadLoopConfig } from '../../../src/config/load-loop-config.js';
import { PROJECT_ROOT } from '../../../src/devserver/project-root.js';
import { createLoopFolder, type LaneSpec, type LoopFolder } from '../../lib/loop-folder.js';
import { parseTrace, type TraceStep } from '../../lib/trace.js';

const STEP = path.join(PROJECT_ROOT, 'bench', 'lib', 'fleet-step.sh');
const STACK = path.join(PROJECT_ROOT, 'bench', 'stack');

/** A loop folder at `dir` of `size` candidates on `lanes`, its training steps sleeping `jobMs`. */
export async function fleetLoopFolder(
  dir: string,
  lanes: readonly LaneSpec[],
  size: number,
  jobMs: readonly [number, number],
): Promise<LoopFolder> {
  const created = await createLoopFolder({
    dir,
    stack: 'bench',
    candidates: Array.from({ length: size }, (_, index) => ({
      name: `f${String(index + 1).padStart(3, '0')}`,
      overrides: {},
    })),
    lanes,
    items: 100,
    base: {},
  });
  const configFile = path.join(created.dir, 'loop.yaml');
  await wrapStackSteps(configFile, jobMs);
  return { ...created, config: await loadLoopConfig(configFile) };
}

/** Rewrite loop.yaml's commands: the bench stack's steps behind the sleeping, tracing wrapper. */
async function wrapStackSteps(configFile: string, jobMs: readonly [number, number]): Promise<void> {
  const yaml = parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
  const wrap = (step: string, script: string) => [
    '/bin/sh',
    STEP,
    step,
    path.join(STACK, script),
    String(jobMs[0]),
    String(jobMs[1]),
  ];
  yaml.commands = {
    ...(yaml.commands as Record<string, unknown>),
    train: wrap('train', 'train.sh'),
    evaluate: wrap('evaluate', 'evaluate.sh'),
    evaluate_ensemble: wrap('evaluate-ensemble', 'evaluate-ensemble.sh'),
  };
  await writeFile(configFile, stringify(yaml));
}

/** The steps of the loop in `loopDir` so far, from every device's trace file (a missing file: none yet). */
export async function readLoopSteps(
  devices: readonly number[],
  traceFile: (device: number) => string,
  loopDir: string,
): Promise<TraceStep[]> {
  const texts = await Promise.all(devices.map((device) => readFile(traceFile(device), 'utf8').catch(() => '')));
  return texts.flatMap((text, index) =>
    parseTrace(text, String(devices[index])).filter((step) => (step.config ?? step.manifest ?? '').startsWith(loopDir)),
  );
}
