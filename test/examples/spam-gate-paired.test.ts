// The spam-gate stack (examples/spam-gate) under a real loop with `champion_rule: paired`: its own
// loop.yaml, two lanes, a dev server, small candidates. The loop runs until a test eval competes
// with a champion item by item; then the ledger (history and the copy) must agree with the
// workflow, and every paired judgement's discordant counts must be what the two checkpoints'
// scores files say, recounted here as the spam gate decides (after the reject band: loop.yaml
// `band_decisions: true`).
//
// Unlike python-gate.test.ts the stack is not copied: its scripts import the loop's own
// src/rules/gate-auc.ts and run tsx from the repository's node_modules, so it runs in place
// (workdir: the repository root) and everything the loop writes is pointed into a temp dir.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import { evalScoresPath } from '../../src/ledger/eval-row.js';
import { foldRows } from '../../src/ledger/from-ledger.js';
import { foldSettingsOf, stateJson } from '../../src/ledger/loop-state.js';
import type { LedgerRow, ParetoSetRow } from '../../src/ledger/rows.js';
import { frontChampion } from '../../src/rules/champion.js';
import type { EvalRow, PairedJudgement } from '../../src/rules/index.js';
import { decodeBits, type ItemErrors } from '../../src/rules/item-errors.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { copyCaughtUp, expectCopyMatches } from '../helpers/bounded-loop.js';
import { expectEachRunAndEvalOnce, ledgerUntil, rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

const LOOP_YAML = fileURLToPath(new URL('../../examples/spam-gate/loop.yaml', import.meta.url));
const BASE = 'examples/spam-gate/configs/base.yaml';
// Small and deliberately weak models (narrow hash, the first 300 body characters): a round of
// three runs takes seconds, and checkpoints make a few dozen errors each, so a challenger and the
// champion disagree on some items. With the small configs of spam-gate.test.ts the errors after the
// band were 0 and 0 or nearly, and the pairings had no discordant item at all.
const WEAK = { hash_dimension: 512, epochs: 2, learning_rate: 0.03, max_body_chars: 300 };
const CANDIDATES = [
  { name: 'unigram', base_config: BASE, overrides: WEAK },
  { name: 'strict', base_config: BASE, overrides: { ...WEAK, class_weight_fail: 3 } },
  { name: 'bigram', base_config: BASE, overrides: { ...WEAK, ngram: 2, hash_dimension: 1024 } },
];

interface Score {
  readonly id: string;
  readonly target: 0 | 1;
  readonly margin: number;
}

/** Which items one checkpoint got wrong after its reject band, by item id, as examples/spam-gate/lib/band.ts decides. */
interface Wrong {
  readonly f2p: Set<string>;
  readonly p2f: Set<string>;
}

/** A test eval judged item by item against the champion. */
type PairedOk = Extract<PairedJudgement, { paired: 'ok' }>;
type Judged = EvalRow & { readonly champion_rule: PairedOk };

const pairedOk = (row: LedgerRow): row is Judged =>
  row.type === 'eval' && (row.champion_rule as PairedJudgement | undefined)?.paired === 'ok';

const discordantTotal = (judgement: PairedOk): number =>
  judgement.f2p.champion_only +
  judgement.f2p.challenger_only +
  judgement.p2f.champion_only +
  judgement.p2f.challenger_only;

/** P(X >= k) for X ~ Binomial(n, 1/2): the exact one-sided McNemar p-value, summed here by hand. */
function upperTail(k: number, n: number): number {
  let choose = 1;
  let tail = 0;
  for (let i = 0; i <= n; i += 1) {
    if (i >= k) tail += choose;
    choose = (choose * (n - i)) / (i + 1);
  }
  return tail / 2 ** n;
}

const keyOf = (row: Pick<EvalRow, 'run_id' | 'checkpoint_name'>) => `${row.run_id}/${row.checkpoint_name}`;

describe('the spam-gate stack under a real loop with champion_rule: paired', () => {
  let harness: LoopHarness;
  let dir = '';
  let config: LoopConfig;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spam-gate-paired-'));
    const candidates = join(dir, 'candidates.yaml');
    await writeFile(candidates, stringify({ candidates: CANDIDATES }));
    harness = await createLoopHarness({ candidates: [{ name: 'unused' }], lanes: 2 });
    const loaded = await loadLoopConfig(LOOP_YAML);
    config = {
      ...loaded,
      lanes: harness.config.lanes,
      state_dir: join(dir, 'state'),
      runs_root: join(dir, 'runs'),
      score_cache_dir: join(dir, 'score-cache'),
      candidates,
      // No teacher (and no student): the paired rule is what is under test, not distillation.
      teacher_after_round: 0,
      champion_rule: 'paired',
      // Every read judged: a spent budget would stop the pairings this waits for.
      test_budget: undefined,
    };
  });

  afterAll(async () => {
    await harness?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('pairs challengers with the champion item by item; the rows carry the statistics the scores files give', async () => {
    const loopId = 'spam-paired';
    const started = Date.now();
    expect(config.band_decisions).toBe(true);
    expect((await harness.startWith(loopId, config)).kind).toBe('started');
    await ledgerUntil(
      harness,
      loopId,
      (rows) => rows.some((row) => pairedOk(row) && discordantTotal(row.champion_rule) > 0),
      150_000,
    );
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    const { rows, state } = await harness.ledger(loopId);

    // History, the workflow's own view and the ledger copy are one state.
    expectEachRunAndEvalOnce(rows, loopId);
    expect(stateOf(state)).toEqual(stateOf(result.view));
    // The packaging workflow may still be packaging the last champion: the copy and an export
    // taken once it caught up with history hold the same rows.
    const copy = await copyCaughtUp(harness, loopId, config.state_dir);
    expectCopyMatches(copy, (await harness.ledger(loopId)).rows, loopId);
    expect(stateOf(stateJson(foldRows(copy, foldSettingsOf(config)), config.state_dir, ''))).toEqual(
      stateOf(result.view),
    );

    // Every ok test eval carries its per-item record over the whole test role, after its band.
    const split = parse(await readFile(join(config.state_dir, 'splits', 'gen-001.yaml'), 'utf8')) as {
      roles: Record<string, string[]>;
    };
    const testItems = split.roles['test']?.length ?? 0;
    expect(testItems).toBeGreaterThan(100);
    const tests = rowsOf(rows, 'eval').filter((row) => row.role === 'test' && row.status === 'ok');
    expect(tests.length).toBeGreaterThanOrEqual(2);
    for (const row of tests) {
      expect(row.item_errors, `${keyOf(row)} item_errors`).toMatchObject({ block: 'decided' });
      expect((row.item_errors?.fail_count ?? 0) + (row.item_errors?.pass_count ?? 0)).toBe(testItems);
    }
    expect(new Set(tests.map((row) => row.item_errors?.items)).size).toBe(1);

    // Each checkpoint's errors, recounted from its scores file and its band.
    const wrongs = new Map<string, Wrong>();
    for (const row of tests) {
      const file = evalScoresPath(config.state_dir, row.run_id, row.checkpoint_name, 'test');
      const scores = (await readFile(file, 'utf8'))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Score);
      expect(scores).toHaveLength(testItems);
      const band = row.reject_band as { low: number; high: number };
      const wrong: Wrong = {
        f2p: new Set(scores.filter((s) => s.target === 0 && s.margin > band.high).map((s) => s.id)),
        p2f: new Set(scores.filter((s) => s.target === 1 && s.margin < band.low).map((s) => s.id)),
      };
      // The recount agrees with the evaluator's own decided counts.
      expect(wrong.f2p.size).toBe(row.decided?.fail_to_pass_count);
      expect(wrong.p2f.size).toBe(row.decided?.pass_to_fail_count);
      // The row's own bitsets (scores-file order, fail items then pass items) flag the same items.
      const errors = row.item_errors as ItemErrors;
      const flagged = (bits: string, target: 0 | 1, length: number) => {
        const ids = scores.filter((s) => s.target === target).map((s) => s.id);
        return decodeBits(bits, length).flatMap((set, i) => (set ? [ids[i]] : []));
      };
      expect(new Set(flagged(errors.f2p, 0, errors.fail_count))).toEqual(wrong.f2p);
      expect(new Set(flagged(errors.p2f, 1, errors.pass_count))).toEqual(wrong.p2f);
      wrongs.set(keyOf(row), wrong);
    }
    const discordant = (champion: string, challenger: string) => {
      const a = wrongs.get(champion) as Wrong;
      const b = wrongs.get(challenger) as Wrong;
      const only = (x: Set<string>, y: Set<string>) => [...x].filter((id) => !y.has(id)).length;
      return {
        f2p: { champion_only: only(a.f2p, b.f2p), challenger_only: only(b.f2p, a.f2p) },
        p2f: { champion_only: only(a.p2f, b.p2f), challenger_only: only(b.p2f, a.p2f) },
      };
    };

    // Walk the ledger as the loop wrote it: the champion before each judged eval, and the
    // challenger it was judged against (under band decisions: the front's best after the eval).
    const byKey = new Map(tests.map((row) => [keyOf(row), row]));
    let champion: string | null = null;
    let front: EvalRow[] = [];
    const frontOf = (row: ParetoSetRow) => row.members.map((member) => byKey.get(keyOf(member)) as EvalRow);
    const checked: string[] = [];
    for (const [index, row] of rows.entries()) {
      if (row.type === 'champion') champion = keyOf(row.champion);
      if (row.type === 'pareto_set') front = frontOf(row);
      if (!pairedOk(row)) continue;
      // The eval's own champion and pareto_set rows follow it directly.
      let after = front;
      for (const next of rows.slice(index + 1)) {
        if (next.type === 'pareto_set') after = frontOf(next);
        else if (next.type !== 'champion') break;
      }
      const challenger = keyOf(frontChampion(after, 'decided'));
      if (champion === null) throw new Error(`${keyOf(row)} was paired before any champion`);
      const judgement = row.champion_rule;
      const expected = discordant(champion, challenger);
      expect(judgement, `${keyOf(row)}: ${challenger} against ${champion}`).toMatchObject({
        rule: 'paired',
        alpha: 0.05,
        f2p: expected.f2p,
        p2f: expected.p2f,
      });
      // One-sided exact p-values of those counts: better = the champion alone wrong more often.
      for (const side of [judgement.f2p, judgement.p2f]) {
        const n = side.champion_only + side.challenger_only;
        expect(side.p_better).toBeCloseTo(upperTail(side.champion_only, n), 12);
        expect(side.p_worse).toBeCloseTo(upperTail(side.challenger_only, n), 12);
      }
      checked.push(
        `${challenger} vs ${champion}: ${JSON.stringify(expected)} dominates=${judgement.dominates} promote=${judgement.promote}`,
      );
    }
    expect(checked.length).toBeGreaterThan(0);
    expect(rows.some((row) => pairedOk(row) && discordantTotal(row.champion_rule) > 0)).toBe(true);

    // Every champion row says what promoted it; one promoted by a paired comparison names both sides.
    const champions = rowsOf(rows, 'champion');
    for (const row of champions) expect(row.paired?.promote, keyOf(row.champion)).toBe(true);
    for (const row of champions.filter((c) => c.paired?.paired === 'ok')) {
      const judgement = row.paired as PairedOk;
      const expected = discordant(keyOf(row.previous as EvalRow), keyOf(row.champion));
      expect(judgement).toMatchObject({ f2p: expected.f2p, p2f: expected.p2f });
    }

    console.log(
      `spam-gate paired loop: ${tests.length} test evals over ${testItems} items, ${champions.length} champion rows, ` +
        `${checked.length} paired judgements in ${Date.now() - started} ms:\n  ${checked.join('\n  ')}`,
    );
  }, 200_000);
});
