#!/usr/bin/env node
// @ts-check
/**
 * Package a champion: (--checkpoint C --config F | --manifest M) --test-eval REPORT
 * --generation G --state-dir D. Writes D/packages/<id>/ (model.json, config or manifest
 * copies, test-eval.json, provenance.json) and prints its path. Fault modes:
 * FIXTURE_FAIL_PACKAGE; FIXTURE_PACKAGE_SLEEP_MS delays the work; FIXTURE_PACKAGE_WAIT_FILE=F
 * holds it until the file F exists (a test releases it when what it needs has happened).
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import process from 'node:process';
import { CliArgs, UsageError } from './lib/args.mjs';
import { asRecord, needString } from './lib/check.mjs';
import { runMain } from './lib/cli.mjs';
import { crash, fail, faultMode, hang, sleep } from './lib/faults.mjs';
import { jsonText, readJson, sha256File, writeText } from './lib/files.mjs';

await runMain('package', async (argv) => {
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
  const generation = args.number('generation');
  const testEval = args.need('test-eval');
  const gate = process.env.FIXTURE_PACKAGE_WAIT_FILE;
  while (gate && !existsSync(gate)) await sleep(100);
  const mode = faultMode('PACKAGE', [String(generation)], undefined);
  if (mode === 'fail') fail('package');
  if (mode === 'hang') await hang('package');
  await sleep(Number(process.env.FIXTURE_PACKAGE_SLEEP_MS ?? 0));
  const sha = sha256File(source);
  const stem = basename(source).replace(/\.[^.]*$/, '');
  const parent = basename(dirname(source));
  const folder = parent === '.' || parent === '..' || parent === '' ? [] : [parent];
  const id = [`g${String(generation).padStart(3, '0')}`, ...folder, stem, sha.slice(0, 12)].join('.');
  const packages = join(args.need('state-dir'), 'packages');
  const staging = join(packages, `.${id}.tmp-${process.pid}`);
  mkdirSync(staging, { recursive: true });
  if (mode === 'crash') await crash('package');
  /** @type {Record<string, unknown>} */
  const provenance = { generation, source: manifest ? 'manifest' : 'checkpoint', path: source, sha256: sha };
  if (manifest) {
    const members = contents(manifest);
    copyFileSync(manifest, join(staging, 'manifest.json'));
    members.forEach((member, index) =>
      copyFileSync(member.config, join(staging, `member-${String(index).padStart(2, '0')}.yaml`)),
    );
    writeText(
      join(staging, 'model.json'),
      jsonText({
        kind: 'ensemble',
        members: members.map((m) => ({
          ...m,
          checkpoint_sha256: sha256File(m.checkpoint),
          model: readJson(m.checkpoint, 'checkpoint'),
        })),
      }),
    );
  } else {
    const config = args.need('config');
    copyFileSync(config, join(staging, 'config.yaml'));
    writeText(join(staging, 'model.json'), jsonText({ kind: 'checkpoint', model: readJson(source, 'checkpoint') }));
    Object.assign(provenance, { config, config_sha256: sha256File(config) });
  }
  readJson(testEval, 'test eval report');
  copyFileSync(testEval, join(staging, 'test-eval.json'));
  Object.assign(provenance, {
    test_eval: testEval,
    test_eval_sha256: sha256File(testEval),
    packaged_by: 'test/fixture-stack',
  });
  writeText(join(staging, 'provenance.json'), jsonText(provenance));
  const final = join(packages, id);
  if (existsSync(final)) rmSync(final, { recursive: true });
  renameSync(staging, final);
  process.stdout.write(`${final}\n`);
});

/**
 * @param {string} manifest
 * @returns {{ config: string, checkpoint: string }[]}
 */
function contents(manifest) {
  const members = asRecord(readJson(manifest, 'manifest'), `manifest ${manifest}`).members;
  if (!Array.isArray(members) || members.length === 0) throw new UsageError(`manifest ${manifest} lists no members`);
  return members.map((member, index) => {
    const record = asRecord(member, `manifest ${manifest} member ${index}`);
    return { config: needString(record, 'config', manifest), checkpoint: needString(record, 'checkpoint', manifest) };
  });
}
