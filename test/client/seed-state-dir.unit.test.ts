// `start --from-seed-state-dir DIR`, its file side (no server): the seed's ledger checked line by
// line, copied as the start of the loop's copy, the seed's split kept, rounds found on disk skipped.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { carryOverSeed, parseSeedLedger } from '../../src/client/seed-carry.js';
import { parseLoopConfig, type LoopConfig } from '../../src/config/loop-config.js';
import { readLedgerCopy } from '../../src/ledger-copy/copy-files.js';
import { seedLedger } from '../helpers/seed-ledger.js';

const STARTED = '2026-03-01T00:00:00.000Z';
let dir: string;
let seedDir: string;
let config: LoopConfig;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seed-state-dir-'));
  seedDir = path.join(dir, 'seed-state');
  await mkdir(seedDir, { recursive: true });
  const file = parseLoopConfig(
    ['data_root: data', 'candidates: candidates.yaml', 'lanes:', '  - {host: gpu-a, device: 0}', ''].join('\n'),
    'loop.yaml',
  );
  config = {
    ...file,
    workdir: dir,
    state_dir: path.join(dir, 'state'),
    runs_root: path.join(dir, 'runs'),
    saturation_evals: 4,
    max_reserve_checks: 2,
    base_seed: 20261200,
  };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeSeed(text: string): Promise<string> {
  const file = path.join(seedDir, 'ledger.jsonl');
  await writeFile(file, text);
  return file;
}

describe('carryOverSeed', () => {
  it("copies the seed ledger as the start of the loop's copy, with its state.json, and carries its generation on", async () => {
    const { rows, text, expected } = seedLedger({
      generations: 3,
      seed: 3,
      stateDir: seedDir,
      runsRoot: config.runs_root,
    });
    await writeSeed(text);
    const over = await carryOverSeed(config, seedDir, STARTED);
    expect(over.copiedTo).toBe(path.join(config.state_dir, 'ledger.jsonl'));
    expect(over.rows).toBe(rows.length);
    expect(await readFile(path.join(config.state_dir, 'ledger.jsonl'), 'utf8')).toBe(text);
    expect(await readLedgerCopy(config.state_dir)).toEqual(rows);
    const state = JSON.parse(await readFile(path.join(config.state_dir, 'state.json'), 'utf8')) as {
      generation: number;
      champion: { run_id: string; checkpoint_name: string };
    };
    expect(state.generation).toBe(3);
    expect(`${state.champion.run_id}/${state.champion.checkpoint_name}`).toBe(expected.champion);
    expect(over.carry.state.generation).toBe(3);
    expect(over.carry.round).toBe(expected.lastRound);
    expect(over.notes).toEqual([]);
    // Again (a start that failed after the copy): the copy is its own, nothing changes.
    const again = await carryOverSeed(config, seedDir, STARTED);
    expect(again.carry.state).toEqual(over.carry.state);
    expect(await readFile(path.join(config.state_dir, 'ledger.jsonl'), 'utf8')).toBe(text);
  });

  it("the state dir is the seed's own: nothing is copied", async () => {
    const { text } = seedLedger({ generations: 2, seed: 2 });
    await writeSeed(text);
    const over = await carryOverSeed({ ...config, state_dir: seedDir }, seedDir, STARTED);
    expect(over.copiedTo).toBeNull();
    expect(await readFile(path.join(seedDir, 'ledger.jsonl'), 'utf8')).toBe(text);
  });

  it("keeps the seed generation's split where it is", async () => {
    const { text } = seedLedger({ generations: 3, seed: 3 });
    await writeSeed(text);
    expect((await carryOverSeed(config, seedDir, STARTED)).carry.split).toBeNull();
    const split = path.join(seedDir, 'splits', 'gen-003.yaml');
    await mkdir(path.dirname(split), { recursive: true });
    await writeFile(split, '{}\n');
    expect((await carryOverSeed(config, seedDir, STARTED)).carry.split).toBe(split);
  });

  it('opens new rounds after run directories of the generation that the ledger has no row of', async () => {
    const { text, expected } = seedLedger({ generations: 2, seed: 2 });
    await writeSeed(text);
    const orphan = expected.lastRound + 2;
    await mkdir(path.join(config.runs_root, `champ-g002-r${String(orphan).padStart(4, '0')}-base`), {
      recursive: true,
    });
    await mkdir(path.join(config.runs_root, 'champ-g001-r0099-base'), { recursive: true });
    const over = await carryOverSeed(config, seedDir, STARTED);
    expect(over.carry.round).toBe(orphan);
    expect(over.notes.join('\n')).toMatch(
      new RegExp(`up to round ${orphan} .* new rounds start at round ${orphan + 1}`),
    );
  });

  it("says when loop.yaml's base seed is not the seed loop's", async () => {
    await writeSeed(seedLedger({ generations: 2, seed: 2, baseSeed: 77 }).text);
    const over = await carryOverSeed(config, seedDir, STARTED);
    expect(over.notes.join('\n')).toMatch(/base_seed is 20261200 but the seed's was 77/);
  });

  it('refuses a state dir that holds a ledger of its own', async () => {
    await writeSeed(seedLedger({ generations: 2, seed: 2 }).text);
    await mkdir(config.state_dir, { recursive: true });
    const other = seedLedger({ generations: 1, seed: 5 }).text;
    await writeFile(path.join(config.state_dir, 'ledger.jsonl'), other);
    await expect(carryOverSeed(config, seedDir, STARTED)).rejects.toThrow(
      /already holds a ledger .* not the seed's.*empty state dir/,
    );
    expect(await readFile(path.join(config.state_dir, 'ledger.jsonl'), 'utf8')).toBe(other);
  });

  it("refuses to carry the seed over twice: a copy that goes on after the seed's rows is resumed with a plain start", async () => {
    const { text } = seedLedger({ generations: 2, seed: 2 });
    await writeSeed(text);
    await mkdir(config.state_dir, { recursive: true });
    await writeFile(
      path.join(config.state_dir, 'ledger.jsonl'),
      `${text}${seedLedger({ generations: 1, seed: 9 }).text.split('\n')[1]}\n`,
    );
    await expect(carryOverSeed(config, seedDir, STARTED)).rejects.toThrow(
      /carried over into it already.*without --from-seed-state-dir/,
    );
  });

  it("needs the seed's ledger.jsonl, with a generation in it", async () => {
    await expect(carryOverSeed(config, seedDir, STARTED)).rejects.toThrow(
      /no ledger.jsonl in .*seed-state: --from-seed-state-dir takes the seed's state dir/,
    );
    await writeSeed('');
    await expect(carryOverSeed(config, seedDir, STARTED)).rejects.toThrow(/holds no generation row/);
  });
});

describe('parseSeedLedger', () => {
  const lines = seedLedger({ generations: 2, seed: 2 })
    .text.split('\n')
    .filter((line) => line !== '');

  function problemAt(edit: (lines: string[]) => string[]): string {
    try {
      parseSeedLedger(edit([...lines]).join('\n'), 'seed/ledger.jsonl');
    } catch (error) {
      return (error as Error).message;
    }
    return 'no error';
  }

  it('reads every row, blank lines and CRLF aside', () => {
    expect(parseSeedLedger(`${lines.join('\r\n')}\r\n\n`, 'ledger.jsonl')).toHaveLength(lines.length);
  });

  it('names the file and line of a line that is not a row', () => {
    expect(problemAt((all) => (all.splice(4, 0, '{"type": "run", "generation": 1'), all))).toMatch(
      /^seed\/ledger\.jsonl:5: not a ledger row \(/,
    );
    expect(problemAt((all) => (all.splice(2, 0, '{"type":"metric","generation":1}'), all))).toBe(
      'seed/ledger.jsonl:3: not a ledger row (unknown type "metric")',
    );
    expect(problemAt((all) => (all.splice(2, 0, '[1,2]'), all))).toBe(
      'seed/ledger.jsonl:3: not a ledger row (not a JSON object)',
    );
    expect(problemAt((all) => [all[1] as string, ...all])).toBe(
      'seed/ledger.jsonl:1: not a ledger row (a run row before any generation row)',
    );
    const run = JSON.parse(lines[1] as string) as Record<string, unknown>;
    expect(problemAt((all) => (all.splice(2, 0, JSON.stringify({ ...run, run_id: undefined })), all))).toBe(
      'seed/ledger.jsonl:3: not a ledger row (run row: "run_id" must be a string (it is missing))',
    );
    expect(problemAt((all) => (all.splice(2, 0, JSON.stringify({ ...run, status: 'done' })), all))).toMatch(
      /:3: not a ledger row \(run row: "status" is "done", not one of trained, /,
    );
    expect(problemAt((all) => (all.splice(2, 0, JSON.stringify({ ...run, generation: 3 })), all))).toBe(
      'seed/ledger.jsonl:3: not a ledger row (run row of generation 3, which no generation row opened yet)',
    );
    expect(problemAt((all) => (all.splice(2, 0, JSON.stringify({ ...run, generation: '1' })), all))).toBe(
      'seed/ledger.jsonl:3: not a ledger row (run row: "generation" must be a whole number >= 1)',
    );
  });

  it("reads the dispatch rows the seed's admission pool writes, every event of them", () => {
    const dispatch = (event: string) =>
      JSON.stringify({
        type: 'dispatch',
        event,
        generation: 1,
        job: 'champ-g001-r0001-a',
        kind: 'Job',
        slot: 3,
        worker: 'gpu0',
        physical_device: 0,
        peak_usage: {},
        retained_usage: {},
        time: '2026-01-05T08:00:00Z',
        ...(event === 'reserved' ? {} : { error: null }),
      });
    const events = ['reserved', 'finished', 'failed', 'cancelled', 'launch_failed'];
    const rows = parseSeedLedger([lines[0] as string, ...events.map(dispatch), ...lines.slice(1)].join('\n'), 'x');
    expect(rows.filter((row) => row.type === 'dispatch').map((row) => (row as { event: string }).event)).toEqual(
      events,
    );
    expect(problemAt((all) => (all.splice(2, 0, dispatch('admitted')), all))).toMatch(
      /:3: not a ledger row \(dispatch row: "event" is "admitted", not one of reserved, finished, /,
    );
  });

  it('a torn last line is an error too, with what to do', () => {
    expect(problemAt((all) => [...all, '{"type":"eval","gener'])).toMatch(
      new RegExp(`:${lines.length + 1}: not a ledger row .*a crash tore: remove it`),
    );
  });

  it('generations open in order', () => {
    const opening = lines.findIndex((line) => line.includes('"type":"generation"') && line.includes('"generation":2'));
    expect(problemAt((all) => all.filter((_, index) => index !== opening))).toMatch(
      /generation 2, which no generation row opened yet|generation 2 opened after/,
    );
  });
});
