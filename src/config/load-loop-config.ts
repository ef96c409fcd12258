import { dirname, resolve } from 'node:path';
import { ConfigError } from './errors.js';
import { loopConfigSchema, type LoopConfig } from './loop-config.js';
import type { Problem } from './problems.js';
import { pathKind, pathKindWords, readFileText } from './read-file.js';
import { parseYamlWith } from './yaml-text.js';

/**
 * Reads and checks loop.yaml. `workdir` defaults to the directory holding the file; every
 * relative path in it (including `workdir` itself) resolves to an absolute one. The workdir
 * must be a directory and the candidates file must exist; other paths may not exist yet.
 */
export async function loadLoopConfig(path: string): Promise<LoopConfig> {
  const text = await readFileText(path, ConfigError);
  const { data, locate } = parseYamlWith(loopConfigSchema, text, path);
  const workdir = resolve(dirname(resolve(path)), data.workdir ?? '.');
  const at = (relative: string): string => resolve(workdir, relative);
  const config: LoopConfig = {
    ...data,
    workdir,
    state_dir: at(data.state_dir),
    runs_root: at(data.runs_root),
    data_root: at(data.data_root),
    candidates: at(data.candidates),
    teacher_path: at(data.teacher_path),
    score_cache_dir: data.score_cache_dir === null ? null : at(data.score_cache_dir),
  };
  const problems: Problem[] = [];
  const workdirKind = await pathKind(workdir);
  if (workdirKind !== 'directory') {
    problems.push({
      field: 'workdir',
      expected: 'an existing directory (subprocesses run there and relative paths resolve against it)',
      found: `${workdir}, ${pathKindWords(workdirKind, 'directory')}`,
      ...(data.workdir === undefined ? {} : locate(['workdir'])),
    });
  } else {
    const candidatesKind = await pathKind(config.candidates);
    if (candidatesKind !== 'file') {
      problems.push({
        field: 'candidates',
        expected: 'an existing candidates file',
        found: `${JSON.stringify(data.candidates)} at ${config.candidates}, ${pathKindWords(candidatesKind, 'file')}`,
        ...locate(['candidates']),
      });
    }
  }
  // A data root that is not there would leave a stack training on whatever it defaults to.
  const dataKind = workdirKind === 'directory' ? await pathKind(config.data_root) : 'directory';
  if (dataKind !== 'directory') {
    problems.push({
      field: 'data_root',
      expected: 'an existing directory holding the training data',
      found: `${JSON.stringify(data.data_root)} at ${config.data_root}, ${pathKindWords(dataKind, 'directory')}`,
      ...locate(['data_root']),
    });
  }
  if (problems.length > 0) {
    throw new ConfigError(path, 'invalid', problems);
  }
  return config;
}
