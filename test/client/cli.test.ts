import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { freePort } from '../../src/devserver/dev-server.js';
import type { StateJson } from '../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import type { LoopView } from '../../src/workflows/loop-view.js';
import { stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { tlsFixture } from '../workers/fake-frontend.js';
import { startTlsProxy } from '../workers/tls-proxy.js';
import { championLoop, championLoopAt } from './champion-loop-cli.js';
import { testReuse, type TestReuse } from '../../src/rules/test-reuse.js';
import { SEED_LEDGER } from './report/seed-ledger.js';

// Every command of the real bin/champion-loop.js against a real dev server with a live loop
// (in-process workers, the fixture stack). One loop, `gate`, goes through start, status, watch,
// advance, stop, ledger and report in order; `hung`, whose runs never finish, is stopped at once.

const COMMANDS = [
  'start',
  'stop',
  'advance',
  'status',
  'watch',
  'ledger',
  'report',
  'state',
  'worker',
  'relocate',
] as const;

describe('the champion-loop CLI', () => {
  let harness: LoopHarness;
  let out: string;
  const cli = (args: readonly string[]) => championLoopAt(harness.server, args);

  /** Workflow ids a visibility query lists. */
  async function listed(query: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const execution of harness.client.workflow.list({ query })) ids.push(execution.workflowId);
    return ids;
  }

  /** A loop.yaml of its own for one loop (state dir, runs root), next to the harness's. */
  async function loopYaml(loopId: string, settings: Record<string, unknown> = {}): Promise<string> {
    const base = parse(await readFile(harness.configFile, 'utf8')) as Record<string, unknown>;
    const file = path.join(harness.dir, `loop-${loopId}.yaml`);
    await writeFile(
      file,
      stringify({ ...base, state_dir: `loops/${loopId}/state`, runs_root: `loops/${loopId}/runs`, ...settings }),
    );
    return file;
  }

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'base' }, { name: 'wide', overrides: { fixture_quality: 0.7 } }],
      base: { fixture_epochs: 2 },
      items: 300,
      // A reserve check every 8 test evals; generation 1 lasts until `advance` ends it (or a check fails).
      loop: { saturation_evals: 8, max_reserve_checks: 10 },
    });
    out = await mkdtemp(path.join(tmpdir(), 'champion-loop-cli-'));
  });

  afterAll(async () => {
    await harness?.dispose();
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('--help works on every command and names its options', async () => {
    const results = await Promise.all([
      championLoop(['--help']),
      ...COMMANDS.map((command) => championLoop([command, '--help'])),
    ]);
    for (const result of results) expect(result.exitCode).toBe(0);
    const [top, ...each] = results.map((result) => String(result.stdout));
    for (const command of COMMANDS) expect(top).toContain(command);
    const help = Object.fromEntries(COMMANDS.map((command, index) => [command, each[index] ?? '']));
    for (const command of COMMANDS) expect(help[command]).toContain(`Usage: champion-loop ${command}`);
    expect(help.start).toContain('--config <loop.yaml>');
    expect(help.stop).toContain('--now');
    expect(help.advance).toContain('--reason <text>');
    expect(help.status).toContain('--json');
    expect(help.watch).toContain('--interval <ms>');
    expect(help.ledger).toContain('--out <dir>');
    expect(help.report).toContain('--out <file.html>');
    expect(help.state).toContain('--from-ledger <file>');
    expect(help.worker).toContain('--metrics-port <port>');
    for (const command of COMMANDS.filter((name) => name !== 'state')) {
      for (const option of [
        '--address',
        '--namespace',
        '--profile',
        '--tls-cert-path',
        '--tls-key-path',
        '--tls-ca-path',
        '--api-key',
      ]) {
        expect(help[command]).toContain(option);
      }
    }
  });

  it('start starts a loop; starting it again reports the running loop and starts nothing', async () => {
    const config = await loopYaml('gate');
    const started = await cli(['start', 'gate', '--config', config]);
    expect(started.stderr).toBe('');
    expect(started.stdout).toBe(
      'started loop gate (workflow champion-loop/gate); watch it with: champion-loop status gate',
    );
    await harness.waitFor('gate', (view) => view.round >= 1);
    const again = await cli(['start', 'gate', '--config', config]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(
      /^loop gate is already running \(workflow champion-loop\/gate, generation 1, round \d+\); nothing started$/,
    );
    const runs = await listed(`WorkflowId = 'champion-loop/gate'`);
    expect(runs).toHaveLength(1);
  });

  it('status prints the state for a person, --json the state query', async () => {
    await harness.waitFor('gate', (view) => view.champion !== null);
    const text = await cli(['status', 'gate']);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/^loop gate: generation \d+, round \d+/);
    expect(text.stdout).toMatch(
      /^champion: champ-g\d{3}-r\d{4}-(base|wide) checkpoint-\d{4}\.pt epoch=\d+ f2p=\d+\/\d+ \(\d+\.\d\d%\) p2f=/m,
    );
    expect(text.stdout).toMatch(/^pareto set \(\d+\):$/m);
    expect(text.stdout).toContain('lane champion-loop.test.gpu0');
    const json = await cli(['status', 'gate', '--json']);
    expect(json.exitCode).toBe(0);
    const view = JSON.parse(String(json.stdout)) as LoopView;
    expect(view.loop_id).toBe('gate');
    expect(view.champion).not.toBeNull();
    expect(view.lanes.map((lane) => lane.queue)).toEqual(harness.lanes);
    expect(view.candidates).toEqual(['base', 'wide']);
    // How much the generation read its test set, and the estimate status printed from the same view.
    const reuse = (view as LoopView & { test_reuse: TestReuse | null }).test_reuse;
    expect(reuse).toEqual(testReuse(view.test_evals, view.champion));
    expect(reuse?.reads).toBe(view.test_evals);
    expect(text.stdout).toMatch(
      /^test set reuse: \d+ reads this generation; the champion's \d+ Fail->Pass of \d+ and \d+ Pass->Fail of \d+ may be optimistic by selection alone by up to about [\d.]+ and [\d.]+ /m,
    );
  });

  it('status goes through a TLS front wanting a client certificate with an envconfig profile, and is refused without one', async () => {
    const proxy = await startTlsProxy(harness.server.address);
    try {
      const toml = path.join(out, 'temporal.toml');
      await writeFile(
        toml,
        [
          '[profile.cluster]',
          `address = "${proxy.address}"`,
          `namespace = "${harness.server.namespace}"`,
          '[profile.cluster.tls]',
          `client_cert_path = "${tlsFixture('client.crt')}"`,
          `client_key_path = "${tlsFixture('client.key')}"`,
          `server_ca_cert_path = "${tlsFixture('ca.crt')}"`,
        ].join('\n'),
      );
      const [viaProfile, withoutCert] = await Promise.all([
        championLoop(['status', 'gate'], { env: { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cluster' } }),
        championLoop([
          'status',
          'gate',
          '--address',
          proxy.address,
          '--namespace',
          harness.server.namespace,
          '--tls-ca-path',
          tlsFixture('ca.crt'),
        ]),
      ]);
      expect(viaProfile.stderr).toBe('');
      expect(viaProfile.stdout).toMatch(/^loop gate: generation \d+, round \d+/);
      expect(proxy.clients).toContain('champion-loop test client');
      expect(withoutCert.exitCode).toBe(1);
      expect(withoutCert.stderr).toContain(
        `no Temporal server answers at ${proxy.address} namespace ${harness.server.namespace} (TLS)`,
      );
    } finally {
      await proxy.close();
    }
  });

  it('watch, piped, prints time-stamped event lines as the loop moves, and ends on Ctrl-C', async () => {
    const watch = championLoopAt(harness.server, ['watch', 'gate', '--interval', '200'], { buffer: false });
    let seen = '';
    watch.stdout?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    const events = () => seen.split('\n').filter((line) => /^\[\d\d:\d\d:\d\d\] /.test(line));
    const deadline = Date.now() + 60_000;
    // The opening line, then at least one change: a round, a champion, the front, a reserve check or a generation.
    while (events().length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    watch.kill('SIGINT');
    const result = await watch;
    expect(result.exitCode).toBe(0);
    const lines = events();
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] watching loop gate: generation \d+, round \d+$/);
    expect(lines.slice(1).join('\n')).toMatch(
      /round \d+ started|new champion: |Pareto front: |reserve check \d+|generation \d+ (opened|ends)/,
    );
    // Not a terminal: no live frame, no cursor movement.
    expect(seen).not.toContain('\x1b[');
  });

  it('advance --reason opens the next generation with that reason', async () => {
    // After a reserve check, so that the report below has one to show.
    await harness.waitFor(
      'gate',
      (view) => view.reserve_checks >= 1 || view.advance_reason !== null || view.generation >= 2,
      90_000,
    );
    // A reserve check that fails advances the loop by itself; while that advance is pending, ours
    // is refused (saying so). A generation a person's advance opened moments ago refuses an
    // unnamed one (the same command sent twice): named with --generation, it goes through.
    let advanced = await cli(['advance', 'gate', '--reason', 'corpus relabelled']);
    for (let tries = 0; advanced.exitCode !== 0 && tries < 4; tries += 1) {
      const refused = String(advanced.stderr);
      const opened = /loop 'gate' opened generation (\d+) by an advance from generation \d+ \(.*\)/.exec(refused);
      if (opened) {
        advanced = await cli(['advance', 'gate', '--reason', 'corpus relabelled', '--generation', String(opened[1])]);
        continue;
      } else {
        expect(refused).toMatch(/loop 'gate' already has an advance pending from generation \d+/);
        const pending = Number(/from generation (\d+)/.exec(refused)?.[1]);
        await harness.waitFor('gate', (view) => view.generation > pending && view.advance_reason === null, 90_000);
      }
      advanced = await cli(['advance', 'gate', '--reason', 'corpus relabelled']);
    }
    expect(advanced.exitCode, String(advanced.stderr)).toBe(0);
    const generation = Number(
      /^loop gate: generation (\d+), round \d+: advancing to generation \d+ before any new job \(corpus relabelled\)$/.exec(
        String(advanced.stdout),
      )?.[1],
    );
    expect(generation).toBeGreaterThanOrEqual(1);
    await harness.waitFor('gate', (view) => view.generation > generation);
    const { rows } = await harness.ledger('gate');
    expect(rows.filter((row) => row.type === 'generation').map((row) => row.reason)).toContain('corpus relabelled');
  });

  it('stop lets running work finish, then the loop closes; a stopped loop cannot be stopped again', async () => {
    const stopped = await cli(['stop', 'gate']);
    expect(stopped.exitCode).toBe(0);
    expect(stopped.stdout).toMatch(
      /^loop gate: generation \d+, round \d+: stopping after running work finishes \(\d+ running\)$/,
    );
    const result = await harness.result('gate');
    expect(result.view.in_flight).toEqual([]);
    const again = await cli(['stop', 'gate']);
    expect(again.exitCode).toBe(1);
    // The whole command that resumes it, with its --config.
    expect(again.stderr).toContain(
      `loop 'gate' is not running (completed); resume it with: champion-loop start gate --config ${harness.configFile}`,
    );
  });

  it('ledger --out writes the ledger.jsonl and state.json of the stopped loop', async () => {
    const dir = path.join(out, 'ledger');
    const exported = await cli(['ledger', 'gate', '--out', dir]);
    expect(exported.exitCode).toBe(0);
    expect(exported.stdout).toMatch(/^\d+ rows -> .*ledger\.jsonl; state -> .*state\.json$/);
    const rows = (await readFile(path.join(dir, 'ledger.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LedgerRow);
    expect([...new Set(rows.map((row) => row.type))]).toEqual(
      expect.arrayContaining(['generation', 'run', 'eval', 'champion', 'pareto_set', 'reserve_check', 'package']),
    );
    const state = JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as StateJson;
    expect(state.generation).toBe(
      Math.max(...rows.filter((row) => row.type === 'generation').map((row) => row.generation)),
    );
    expect(state.champion).not.toBeNull();
  });

  it('status of the stopped loop prints the state its ledger folds to', async () => {
    const state = JSON.parse(await readFile(path.join(out, 'ledger', 'state.json'), 'utf8')) as StateJson;
    const text = await cli(['status', 'gate']);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(
      /^loop gate is not running \(its last run was completed\); 'champion-loop start' goes on from here$/m,
    );
    const json = JSON.parse(String((await cli(['status', 'gate', '--json'])).stdout)) as StateJson & {
      running: boolean;
    };
    expect(json.running).toBe(false);
    expect(stateOf(json)).toEqual(stateOf(state));
  });

  it('report --out writes a self-contained HTML file with one plotted point per test evaluation', async () => {
    const file = path.join(out, 'reports', 'gate.html');
    const made = await cli(['report', 'gate', '--out', file]);
    expect(made.exitCode).toBe(0);
    expect(made.stdout).toMatch(
      /^report of loop gate: \d+ generations?, \d+ test evaluations -> .*gate\.html \(opens offline in any browser\)$/,
    );
    const html = await readFile(file, 'utf8');
    const rows = (await readFile(path.join(out, 'ledger', 'ledger.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LedgerRow);
    const testEvals = rows.filter((row) => row.type === 'eval' && row.role === 'test' && row.status === 'ok');
    const generations = [...new Set(rows.filter((row) => row.type === 'generation').map((row) => row.generation))];
    expect(html).not.toMatch(/https?:|<link|<script|src=/i);
    expect(html.match(/<svg class="front-plot"/g)).toHaveLength(new Set(testEvals.map((row) => row.generation)).size);
    expect(html.match(/<circle class="point"/g)).toHaveLength(testEvals.length);
    expect(html.match(/<path class="champion"/g)?.length).toBeGreaterThanOrEqual(1);
    for (const generation of generations) expect(html).toContain(`<section class="generation" id="g${generation}"`);
    expect(html).toMatch(/<span class="badge (pass|fail|error|stale)">/);
    expect(html).toContain('corpus relabelled');
  });

  it('report without --out writes beside the loop`s state dir, never into the folder it runs in (issue 47)', async () => {
    const expected = path.join(harness.dir, 'loops', 'gate', 'reports', 'gate.html');
    const made = await cli(['report', 'gate']);
    expect(made.exitCode, String(made.stderr)).toBe(0);
    expect(made.stdout).toContain(`-> ${expected} (opens offline`);
    expect(await readFile(expected, 'utf8')).toContain('<svg class="front-plot"');
    expect(existsSync('champion-loop-gate.html')).toBe(false);
  });

  it('ledger --out and report --out refuse to replace files without --force, and refuse the loop`s own state dir (issue 24)', async () => {
    const dir = path.join(out, 'ledger');
    const again = await cli(['ledger', 'gate', '--out', dir]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(
      `--out: ${path.join(dir, 'ledger.jsonl')} and ${path.join(dir, 'state.json')} exist already; add --force to replace them`,
    );
    const forced = await cli(['ledger', 'gate', '--out', dir, '--force']);
    expect(forced.exitCode, String(forced.stderr)).toBe(0);
    const report = path.join(out, 'reports', 'gate.html');
    const replaced = await cli(['report', 'gate', '--out', report]);
    expect(replaced.exitCode).toBe(1);
    expect(replaced.stderr).toContain(`--out: ${report} exists already; add --force to replace it`);
    // Into the loop's own state dir, where the orchestrator keeps its copy: refused, nothing written.
    const stateDir = path.join(harness.dir, 'loops', 'gate', 'state');
    for (const [args, target] of [
      [['ledger', 'gate', '--out', stateDir, '--force'], stateDir],
      [['ledger', 'gate', '--out', path.join(stateDir, 'exports'), '--force'], path.join(stateDir, 'exports')],
      [['report', 'gate', '--out', path.join(stateDir, 'gate.html'), '--force'], stateDir],
    ] as const) {
      const refused = await cli([...args]);
      expect(refused.exitCode, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain(`is in loop gate's own state dir`);
      expect(refused.stderr).toContain('Nothing written.');
      expect(existsSync(path.join(target, 'exports'))).toBe(false);
    }
    expect(existsSync(path.join(stateDir, 'gate.html'))).toBe(false);
  });

  it('stop --now cancels running jobs at once; start resumes the stopped loop', async () => {
    const candidates = path.join(harness.dir, 'candidates-hung.yaml');
    await harness.writeCandidates([{ name: 'stuck', overrides: { fixture_train: 'hang' } }], candidates);
    const config = await loopYaml('hung', { candidates: 'candidates-hung.yaml' });
    expect((await cli(['start', 'hung', '--config', config])).exitCode).toBe(0);
    const busy = await harness.waitFor('hung', (view) => view.in_flight.length > 0);
    const child = busy.in_flight[0]?.childId ?? '';
    const now = await cli(['stop', 'hung', '--now']);
    expect(now.exitCode).toBe(0);
    expect(now.stdout).toMatch(/^loop hung: generation 1, round \d+: stopping now \(running jobs cancelled\)$/);
    await harness.result('hung');
    expect((await harness.client.workflow.getHandle(child).describe()).status.name).toBe('CANCELLED');
    const resumed = await cli(['start', 'hung', '--config', config]);
    expect(resumed.stdout).toMatch(
      /^resumed loop hung in generation 1 from its last run, which stopped \(workflow champion-loop\/hung\)$/,
    );
    await harness.waitFor('hung', (view) => view.in_flight.length > 0);
    expect((await cli(['stop', 'hung', '--now'])).exitCode).toBe(0);
    await harness.result('hung');
  });

  it('state --from-ledger folds a seed-format ledger to its state.json', async () => {
    const result = await championLoop(['state', '--from-ledger', SEED_LEDGER, '--saturation-evals', '3']);
    expect(result.exitCode).toBe(0);
    const state = JSON.parse(String(result.stdout)) as StateJson;
    expect(state).toMatchObject({
      generation: 2,
      split: 'artifacts/champion-loop/splits/gen-002.yaml',
      test_evals: 4,
      tests_since_reserve_check: 4,
      reserve_checks: 0,
      advance_reason: null,
      updated: '2026-01-05T08:35:00.000Z',
    });
    expect([state.champion?.run_id, state.champion?.checkpoint_name]).toEqual([
      'champ-g002-r0001-wide',
      'checkpoint-0002.pt',
    ]);
    expect(state.pareto_set.map((member) => `${member.run_id}/${member.checkpoint_name}`)).toEqual([
      'champ-g002-r0001-wide/checkpoint-0002.pt',
      'champ-g002-r0001-base/checkpoint-0001.pt',
    ]);
  });

  describe('errors say what is wrong and what to do', () => {
    it('no server at the address: where it looked and how to point elsewhere, without the API key', async () => {
      const port = await freePort();
      const [plain, keyed] = await Promise.all([
        championLoop(['status', 'gate', '--address', `127.0.0.1:${port}`]),
        championLoop(['status', 'gate', '--address', `127.0.0.1:${port}`], {
          env: { TEMPORAL_API_KEY: 'sk-cli-SECRET-42' },
        }),
      ]);
      expect(plain.exitCode).toBe(1);
      expect(plain.stderr).toContain(
        `champion-loop: no Temporal server answers at 127.0.0.1:${port} namespace champion-loop`,
      );
      expect(plain.stderr).toContain(
        "Start the local one with 'npm run dev-server', or point at yours with --address/--namespace",
      );
      expect(keyed.exitCode).toBe(1);
      expect(keyed.stderr).toContain(`127.0.0.1:${port} namespace champion-loop (TLS, API key)`);
      expect(String(keyed.stdout) + String(keyed.stderr)).not.toContain('sk-cli-SECRET-42');
    });

    it('no such loop: the loop id and namespace to check, for status, ledger and report alike', async () => {
      const results = await Promise.all([
        cli(['status', 'nope']),
        cli(['ledger', 'nope']),
        cli(['report', 'nope', '--out', path.join(out, 'nope.html')]),
      ]);
      for (const result of results) {
        expect(result.exitCode).toBe(1);
        expect(result.stderr).toContain(
          "no loop 'nope' here (no workflow champion-loop/nope); check the loop id and the namespace, or start it with 'champion-loop start'",
        );
      }
      expect(existsSync(path.join(out, 'nope.html'))).toBe(false);
    });

    it('an invalid loop.yaml: the file, the line and the field', async () => {
      const file = path.join(harness.dir, 'loop-bad.yaml');
      await writeFile(file, (await readFile(harness.configFile, 'utf8')).replace(/^parallel: .*$/m, 'parallel: lots'));
      const result = await cli(['start', 'bad', '--config', file]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(`^champion-loop: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+(:\\d+)?: parallel: `),
      );
      expect(result.stdout).toBe('');
    });

    it('an invalid candidates file: the file and the field', async () => {
      const candidates = path.join(harness.dir, 'candidates-bad.yaml');
      await writeFile(
        candidates,
        'candidates:\n  - name: base\n    base_config: configs/base.yaml\n  - base_config: configs/base.yaml\n',
      );
      const result = await cli([
        'start',
        'bad',
        '--config',
        await loopYaml('bad', { candidates: 'candidates-bad.yaml' }),
      ]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(`champion-loop: ${candidates}:4`);
      expect(result.stderr).toContain('candidates.1.name');
      expect(await listed(`WorkflowId = 'champion-loop/bad'`)).toEqual([]);
    });

    it('a ledger line that is not a row: the file and the line', async () => {
      const file = path.join(out, 'broken.jsonl');
      await writeFile(file, `${(await readFile(SEED_LEDGER, 'utf8')).split('\n')[0]}\n{not json\n`);
      const result = await championLoop(['state', '--from-ledger', file]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(`${file}:2: not a ledger row`);
    });
  });
});
