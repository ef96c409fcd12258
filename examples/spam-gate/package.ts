// Package a champion: (--checkpoint C --config F | --manifest M) --test-eval REPORT
// --generation G --state-dir D. Writes D/packages/<name>/ (model.json with the weights and the
// reject band, config or manifest copies, test-eval.json, provenance.json), prints its path.
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import process from 'node:process';
import { CliArgs, UsageError } from './lib/args.js';
import { asRecord, isRecord } from './lib/check.js';
import { runMain } from './lib/cli.js';
import { jsonText, readJson, sha256File, writeText } from './lib/files.js';
import { readManifest, type Member } from './lib/manifest.js';
import { MODEL_FILE, PACKAGE_FORMAT } from './lib/packaged-model.js';
import { parseCheckpoint } from './lib/checkpoint.js';

await runMain('package', (argv) => {
  const args = new CliArgs(argv, {
    checkpoint: 'one',
    config: 'one',
    manifest: 'one',
    'test-eval': 'one',
    generation: 'one',
    'state-dir': 'one',
  });
  const manifest = args.get('manifest');
  if ((manifest !== undefined) === (args.has('checkpoint') || args.has('config'))) {
    throw new UsageError('give either --checkpoint and --config, or --manifest');
  }
  const source = manifest ?? args.need('checkpoint');
  const members: Member[] =
    manifest === undefined ? [{ checkpoint: source, config: args.need('config') }] : readManifest(manifest);
  const generation = args.integer('generation');
  const testEval = args.need('test-eval');
  const report = asRecord(readJson(testEval, 'test eval report'), `test eval report ${testEval}`);
  const sha = sha256File(source);
  const stem = basename(source).replace(/\.[^.]*$/, '');
  const parent = basename(dirname(source));
  const folder = parent === '.' || parent === '..' || parent === '' ? [] : [parent];
  const name = [`g${String(generation).padStart(3, '0')}`, ...folder, stem, sha.slice(0, 12)].join('.');
  const packages = join(args.need('state-dir'), 'packages');
  // Built aside and renamed into place: a package folder that exists is always complete.
  const staging = join(packages, `.${name}.tmp-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const memberFiles = members.map((member, index) => {
    const configCopy = manifest === undefined ? 'config.yaml' : `member-${String(index).padStart(2, '0')}.yaml`;
    copyFileSync(member.config, join(staging, configCopy));
    const model = readJson(member.checkpoint, 'checkpoint');
    parseCheckpoint(model, `checkpoint ${member.checkpoint}`);
    return {
      ...member,
      config_copy: configCopy,
      config_sha256: sha256File(member.config),
      checkpoint_sha256: sha256File(member.checkpoint),
      model,
    };
  });
  if (manifest !== undefined) copyFileSync(manifest, join(staging, 'manifest.json'));
  writeText(
    join(staging, MODEL_FILE),
    jsonText({
      format: PACKAGE_FORMAT,
      kind: manifest === undefined ? 'checkpoint' : 'ensemble',
      reject_band: isRecord(report.reject_band) ? report.reject_band : null,
      members: memberFiles.map((m) => ({
        checkpoint: m.checkpoint,
        checkpoint_sha256: m.checkpoint_sha256,
        model: m.model,
      })),
    }),
  );
  copyFileSync(testEval, join(staging, 'test-eval.json'));
  const provenance = {
    generation,
    source: manifest === undefined ? 'checkpoint' : 'manifest',
    path: source,
    sha256: sha,
    members: memberFiles.map((m) => ({
      checkpoint: m.checkpoint,
      checkpoint_sha256: m.checkpoint_sha256,
      config: m.config,
      config_sha256: m.config_sha256,
      config_copy: m.config_copy,
    })),
    test_eval: testEval,
    test_eval_sha256: sha256File(testEval),
    test_result: pick(report, [
      'role',
      'fail_to_pass_count',
      'pass_to_fail_count',
      'fail_count',
      'pass_count',
      'macro_f1',
      's_f1',
      'gate_auc',
      'decided',
    ]),
    model_sha256: sha256File(join(staging, MODEL_FILE)),
    packaged_at: new Date().toISOString(),
    packaged_by: 'examples/spam-gate/package.ts',
    scorer: 'node --import tsx examples/spam-gate/score.ts --package <this folder> --message <mail file or ->',
  };
  writeText(join(staging, 'provenance.json'), jsonText(provenance));
  const final = join(packages, name);
  if (existsSync(final)) rmSync(final, { recursive: true });
  renameSync(staging, final);
  process.stdout.write(`${final}\n`);
});

function pick(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in record).map((key) => [key, record[key]]));
}
