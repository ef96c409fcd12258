// The Python example stack (examples/python-gate) needs python3 with numpy and PyYAML. Both are
// installed with pip when missing, as the test set-up provisions the Temporal CLI; without
// python3 the tests are skipped.
import { spawnSync } from 'node:child_process';

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
