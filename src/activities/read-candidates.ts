import { loadCandidates } from '../config/load-candidates.js';
import type { CandidatesRead } from './types.js';

/**
 * Re-reads candidates.yaml (base configs resolved against the workdir). An invalid file is an
 * answer, not a failure: the workflow keeps its previous list, or stops on the very first read.
 */
export async function readCandidates(input: {
  readonly file: string;
  readonly workdir: string;
}): Promise<CandidatesRead> {
  try {
    const candidates = await loadCandidates(input.file, input.workdir);
    return {
      ok: true,
      candidates: candidates.map((candidate) => ({
        name: candidate.name,
        base_config: candidate.base_config,
        overrides: { ...candidate.overrides },
      })),
    };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
