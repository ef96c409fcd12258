// Real PyYAML for the config tests: one python3 per batch. PyYAML is installed with pip when
// missing (as the test set-up provisions the Temporal CLI); without python3 the tests are skipped.
import { execFileSync, spawnSync } from 'node:child_process';

// A job with "job" is the seed's config_for: base config, overrides ({generation} expanded in
// top-level strings; JSON values or a YAML mapping PyYAML reads), split and seed; without it a plain safe_load + safe_dump round trip.
const SCRIPT = `
import hashlib, json, sys, yaml
def expand(text, generation):
    return text.replace("{generation}", f"{generation:03d}")
out = []
for case in json.load(sys.stdin):
    try:
        config = yaml.safe_load(case["text"])
        job = case.get("job")
        if job is not None:
            overrides = job["overrides"] if "overrides" in job else yaml.safe_load(job["overridesYaml"])
            config.update({key: expand(value, job["generation"]) if isinstance(value, str) else value for key, value in overrides.items()})
            config["split"] = job["split"]
            config["seed"] = job["seed"]
        text = yaml.safe_dump(config, sort_keys=False)
        out.append({"ok": True, "text": text, "sha256": hashlib.sha256(text.encode()).hexdigest()})
    except Exception as error:
        out.append({"ok": False, "error": type(error).__name__ + ": " + str(error)})
json.dump(out, sys.stdout)
`;

/** Why PyYAML cannot be used here, or null when it can (installing it when missing). */
export function pyyamlUnavailable(): string | null {
  const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (python.error !== undefined || python.status !== 0) {
    return 'python3 is not installed: the PyYAML comparison tests are skipped';
  }
  if (spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' }).status === 0) {
    return null;
  }
  const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', 'pyyaml'], { encoding: 'utf8' });
  if (pip.status !== 0) {
    throw new Error(`PyYAML is missing and "python3 -m pip install pyyaml" failed:\n${pip.stderr}`);
  }
  return null;
}

export type PyyamlResult =
  | { readonly ok: true; readonly text: string; readonly sha256: string }
  | { readonly ok: false; readonly error: string };

/** The seed's job: overrides as JSON values (as prepareRun gets them) or as candidates.yaml holds them. */
export interface SeedJob {
  readonly overrides?: Readonly<Record<string, unknown>>;
  readonly overridesYaml?: string;
  readonly generation: number;
  readonly split: string;
  readonly seed: number;
}

export interface PyyamlCase {
  readonly text: string;
  readonly job?: SeedJob;
}

/** PyYAML's bytes for each case (`safe_dump(..., sort_keys=False)`) and their sha256, all in one python3 run. */
export function pyyamlDump(cases: readonly PyyamlCase[]): PyyamlResult[] {
  const output = execFileSync('python3', ['-c', SCRIPT], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(output) as PyyamlResult[];
}
