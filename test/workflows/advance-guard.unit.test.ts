import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import { generationRow, initialLoopState, recordRow } from '../../src/ledger/loop-state.js';
import { firstCarry } from '../../src/workflows/generation/carry.js';
import { ADVANCE_TWICE_MS, validateAdvance } from '../../src/workflows/generation/control.js';
import { openGeneration, toCarry, type Generation } from '../../src/workflows/generation/state.js';
import { evalRowOf } from '../helpers/eval-rows.js';

// An advance names the generation it advances from (the CLI: the one the loop is at when it is
// sent, or --generation); the same command sent again is refused, saying which generation the
// first one opened (issue 47: two advances 11 s apart opened two generations).

let dir: string;
let config: LoopConfig;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-advance-'));
  await mkdir(path.join(dir, 'data'));
  await writeFile(path.join(dir, 'base.yaml'), 'fixture_epochs: 2\n');
  await writeFile(
    path.join(dir, 'candidates.yaml'),
    stringify({ candidates: [{ name: 'base', base_config: 'base.yaml', overrides: {} }] }),
  );
  await writeFile(
    path.join(dir, 'loop.yaml'),
    stringify({
      data_root: 'data',
      candidates: 'candidates.yaml',
      lanes: [{ host: 'box', device: 0 }],
      commands: { train: ['train'], evaluate: ['evaluate'], split_generate: ['split'], split_carve: ['carve'] },
    }),
  );
  config = await loadLoopConfig(path.join(dir, 'loop.yaml'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Generation 2, opened by an advance from generation 1 with `reason`, `agoMs` ago. */
function openedByAdvance(reason: string, agoMs: number): Generation {
  const started = new Date(Date.now() - agoMs).toISOString();
  const opening = generationRow({ ...initialLoopState(), generation: 1 }, reason, config.base_seed, started);
  const carry = { ...firstCarry(config, started), state: { ...initialLoopState(), generation: 1 }, opening };
  return openGeneration({ loopId: 'gate', config, carry }, started);
}

/** The same generation in its next run (continue-as-new): its opening row is no longer in the input. */
function handedOver(gen: Generation): Generation {
  return openGeneration({ loopId: 'gate', config, carry: toCarry(gen) }, new Date().toISOString());
}

const refusal = (action: () => void): string => {
  try {
    action();
  } catch (error) {
    return (error as Error).message;
  }
  return '';
};

describe('advance: one generation per advance, however often it is sent', () => {
  it('refuses the same advance sent again: it names the generation the first one opened, and how to mean it', () => {
    const gen = openedByAdvance('labels changed', 11_000);
    for (const same of [gen, handedOver(gen)]) {
      const message = refusal(() => validateAdvance(same, 'labels changed', 2, false));
      expect(message).toMatch(/^loop 'gate' opened generation 2 by an advance from generation 1 \(labels changed\) /);
      expect(message).toContain('To advance generation 2 all the same, name it: --generation 2');
      // Named on purpose, it goes through.
      expect(refusal(() => validateAdvance(same, 'labels changed', 2, true))).toBe('');
    }
  });

  it('refuses an advance naming a generation already advanced, saying which generation that advance opened', () => {
    const gen = openedByAdvance('labels changed', 11_000);
    expect(refusal(() => validateAdvance(gen, 'labels changed', 1, true))).toBe(
      "loop 'gate' is at generation 2, past generation 1 this advance names: generation 1 was advanced already, and that advance opened generation 2 (labels changed); nothing changed. To advance generation 2 too, run advance again",
    );
  });

  it('takes an unnamed advance once the generation has run a while and scored on its split', () => {
    const gen = openedByAdvance('labels changed', ADVANCE_TWICE_MS + 60_000);
    // Past the window, but nothing scored yet: still the same command.
    expect(refusal(() => validateAdvance(gen, 'again', 2, false))).toMatch(/opened generation 2 by an advance/);
    gen.state = recordRow(
      gen.state,
      { ...evalRowOf('champ-g002-r0001-base', 1, 3, 4), generation: 2 },
      gen.settings,
    ).state;
    expect(gen.state.testEvals).toBe(1);
    expect(refusal(() => validateAdvance(gen, 'again', 2, false))).toBe('');
  });

  it('a generation the loop opened by itself (a failed reserve check) is advanced at once', () => {
    const gen = openedByAdvance('reserve_failed', 1_000);
    expect(refusal(() => validateAdvance(gen, 'labels changed', 2, false))).toBe('');
  });

  it('an advance from an older client (no generation named) is judged by the other checks only', () => {
    const gen = openedByAdvance('labels changed', 1_000);
    expect(refusal(() => validateAdvance(gen, 'labels changed'))).toBe('');
  });
});
