// The Python example stack (examples/python-gate) needs python3 with numpy and PyYAML. Both are
// installed with pip when missing, as the test set-up provisions the Temporal CLI; without
// python3 the tests are skipped.
import { spawnSync } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const STACK = fileURLToPath(new URL('../../examples/python-gate/', import.meta.url));

const MODULES = [
  { module: 'numpy', pip: 'numpy' },
  { module: 'yaml', pip: 'pyyaml' },
] as const;

/** Why the Python stack cannot run here, or null when it can (installing numpy and PyYAML when missing). */
export function pythonStackUnavailable(): string | null {
  const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (python.error !== undefined || python.status !== 0) {
    return 'python3 is not installed: the python-gate tests are skipped';
  }
  for (const { module, pip } of MODULES) {
    if (spawnSync('python3', ['-c', `import ${module}`], { encoding: 'utf8' }).status === 0) continue;
    const install = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', pip], { encoding: 'utf8' });
    if (install.status !== 0) {
      throw new Error(`${pip} is missing and "python3 -m pip install ${pip}" failed:\n${install.stderr}`);
    }
  }
  return null;
}

/** A copy of the python-gate stack in `dir` and a simulated card of `totalMiB` beside it. */
export interface SimCardStack {
  /** The stack's folder (its `sim-bin/nvidia-smi` reads the card). */
  readonly stack: string;
  /** The card's pool file (CHAMPION_LOOP_SIM_GPU). */
  readonly card: string;
  /** PATH with the card's nvidia-smi first. */
  readonly path: string;
}

export async function simCardStack(dir: string, totalMiB: number): Promise<SimCardStack> {
  const stack = join(dir, 'python-gate');
  await cp(STACK, stack, { recursive: true, filter: (source) => !/\/(artifacts|__pycache__)(\/|$)/.test(source) });
  const card = join(dir, 'card.json');
  const init = spawnSync('python3', ['-m', 'pygate.simgpu', 'init', '--path', card, '--total-mib', String(totalMiB)], {
    cwd: stack,
    encoding: 'utf8',
  });
  if (init.status !== 0) throw new Error(`the simulated card did not start: ${init.stderr}`);
  return { stack, card, path: `${join(stack, 'sim-bin')}:${process.env.PATH ?? ''}` };
}
