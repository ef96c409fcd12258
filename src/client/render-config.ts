import path from 'node:path';
import { configText, readBaseConfig } from '../activities/prepare-run.js';
import { loadCandidates } from '../config/load-candidates.js';
import { loadLoopConfig } from '../config/load-loop-config.js';
import { padGeneration } from '../rules/ids.js';
import { trainingSeed } from '../rules/seeds.js';

/**
 * The bytes the loop writes as a candidate's job config in a generation and round (prepareRun):
 * its base config read as PyYAML reads it, its overrides, the generation's split path and the
 * round's seed, dumped as the seed's `yaml.safe_dump(config, sort_keys=False)`.
 */
export async function renderConfig(loopYaml: string, name: string, generation: number, round: number): Promise<string> {
  const config = await loadLoopConfig(loopYaml);
  const candidates = await loadCandidates(config.candidates, config.workdir);
  const candidate = candidates.find((item) => item.name === name);
  if (candidate === undefined) {
    throw new Error(
      `no candidate "${name}" in ${config.candidates} (candidates: ${candidates.map((item) => item.name).join(', ') || 'none'})`,
    );
  }
  const split = path.join(config.state_dir, 'splits', `gen-${padGeneration(generation)}.yaml`);
  return configText(await readBaseConfig(candidate), candidate, generation, split, trainingSeed(round));
}
