// `champion-loop start LOOP --from-seed-state-dir DIR`: a loop the Python seed ran goes on here, in
// the seed's generation, from the seed's ledger.jsonl (carryFromLedger). Its splits, job configs,
// eval reports and run directories stay where they are: the ledger names them. The seed's rows
// become the start of the loop's ledger copy, so the export, the report and status hold them too.
import { readdir, readFile, rename, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { exists } from '../activities/support/move-aside.js';
import type { LoopConfig } from '../config/loop-config.js';
import { LedgerLineError } from '../ledger/ledger-lines.js';
import { updatedTime } from '../ledger/from-ledger.js';
import { stateJson } from '../ledger/loop-state.js';
import type { LedgerRow } from '../ledger/rows.js';
import { ledgerCopyPath, LEDGER_FILE, stateCopyPath } from '../ledger-copy/copy-files.js';
import { padGeneration } from '../rules/ids.js';
import type { GenerationCarry } from '../workflows/generation/carry.js';
import { loopWorkflowId } from '../workflows/ids.js';
import { runSelections } from './run-selections.js';
import { carryFromLedger } from './carry-from-ledger.js';
import { statusInWords } from './status-words.js';

/** What each kind of row must hold for the loop to fold and carry it (docs/ledger.md). */
const REQUIRED: Record<LedgerRow['type'], Record<string, 'string' | 'number' | 'array' | 'object'>> = {
  generation: { event: 'string', started: 'string' },
  run: {
    run_id: 'string',
    candidate: 'string',
    round: 'number',
    status: 'string',
    checkpoints: 'array',
    config_path: 'string',
  },
  eval: { role: 'string', run_id: 'string', checkpoint_name: 'string', status: 'string', finished: 'string' },
  champion: { champion: 'object', finished: 'string' },
  pareto_set: { members: 'array', finished: 'string' },
  reserve_check: {
    run_id: 'string',
    checkpoint_name: 'string',
    status: 'string',
    verdict: 'string',
    test_evals: 'number',
    finished: 'string',
  },
  teacher: { status: 'string', members: 'array', finished: 'string' },
  package: { event: 'string', run_id: 'string', checkpoint_name: 'string', time: 'string' },
  split: { event: 'string', error: 'string', time: 'string' },
  dispatch: { event: 'string', job: 'string', time: 'string' },
};

const VALUES: Partial<Record<LedgerRow['type'], Record<string, readonly string[]>>> = {
  generation: { event: ['start', 'advance'] },
  run: { status: ['trained', 'no_eligible_checkpoint', 'train_failed', 'stale_run_dir', 'ensemble'] },
  eval: { role: ['test', 'reserve', 'validation', 'development'], status: ['ok', 'failed'] },
  reserve_check: { status: ['ok', 'failed'], verdict: ['pass', 'fail', 'error'] },
  teacher: { status: ['ok', 'failed'] },
  package: { event: ['launched', 'finished', 'dropped', 'launch_failed'] },
  split: { event: ['failed'] },
  // The seed's admission pool writes all five; this loop writes reserved and finished.
  dispatch: { event: ['reserved', 'finished', 'failed', 'cancelled', 'launch_failed'] },
};

function kindOf(value: unknown): string {
  return Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
}

/** Why a parsed line is not a row the loop can carry, or null when it is one. */
function rowProblem(value: unknown, opened: number | null): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const row = value as Record<string, unknown>;
  const type = row.type;
  if (typeof type !== 'string') return 'no "type" field';
  if (!(type in REQUIRED)) return `unknown type "${type}"`;
  const generation = row.generation;
  if (typeof generation !== 'number' || !Number.isInteger(generation) || generation < 1)
    return `${type} row: "generation" must be a whole number >= 1`;
  for (const [field, kind] of Object.entries(REQUIRED[type as LedgerRow['type']])) {
    if (kindOf(row[field]) !== kind)
      return `${type} row: "${field}" must be a ${kind} (it is ${row[field] === undefined ? 'missing' : kindOf(row[field])})`;
  }
  for (const [field, allowed] of Object.entries(VALUES[type as LedgerRow['type']] ?? {})) {
    if (!allowed.includes(row[field] as string))
      return `${type} row: "${field}" is "${String(row[field])}", not one of ${allowed.join(', ')}`;
  }
  if (type === 'generation') {
    if (opened !== null && generation !== opened + 1)
      return `generation ${generation} opened after generation ${opened}`;
  } else if (opened === null) return `a ${type} row before any generation row`;
  else if (generation > opened) return `${type} row of generation ${generation}, which no generation row opened yet`;
  return null;
}

/**
 * The rows of a seed's ledger.jsonl. Every line must be a row (blank lines aside): a line that is
 * not (a write the seed's crash tore, a hand edit) is an error naming the file and line, never
 * skipped, since a row left out would change the state carried over.
 */
export function parseSeedLedger(text: string, file: string): LedgerRow[] {
  const rows: LedgerRow[] = [];
  let opened: number | null = null;
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const torn =
        index === lines.length - 1
          ? '; a last line without its newline is a write a crash tore: remove it, the seed never counted it'
          : '';
      throw new LedgerLineError(file, index + 1, `${(error as Error).message}${torn}`);
    }
    const problem = rowProblem(value, opened);
    if (problem !== null) throw new LedgerLineError(file, index + 1, problem);
    const row = value as LedgerRow;
    if (row.type === 'generation') opened = row.generation;
    rows.push(row);
  }
  return rows;
}

export interface SeedCarryOver {
  readonly carry: GenerationCarry;
  /** The seed's ledger file and how many rows it holds. */
  readonly ledger: string;
  readonly rows: number;
  /** Where the seed's rows were copied as the start of the loop's ledger copy; null when the state dir is the seed's. */
  readonly copiedTo: string | null;
  /** Things the operator should know (a base seed that differs, rounds found on disk only). */
  readonly notes: string[];
}

/** The highest round of `generation` whose run directory exists under the runs root (the seed's run ids). */
async function roundsOnDisk(runsRoot: string, generation: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir(runsRoot);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  const pattern = new RegExp(`^champ-g${padGeneration(generation)}-r(\\d{4,})-`);
  return Math.max(0, ...names.map((name) => Number(pattern.exec(name)?.[1] ?? 0)));
}

/** Write a file whole (beside it, then rename), so a crash leaves it absent or complete. */
async function writeWhole(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

/**
 * Read and check a seed's state dir and make the carry that continues it; the seed's ledger
 * becomes the start of the loop's copy in `config.state_dir` (unless that is the seed's dir). A
 * state dir that holds a ledger copy of another record is refused. Doing it again after a start
 * that failed finds its own copy and does the same.
 */
export async function carryOverSeed(config: LoopConfig, seedStateDir: string, started: string): Promise<SeedCarryOver> {
  const dir = path.resolve(seedStateDir);
  const file = path.join(dir, LEDGER_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new Error(
      `no ${LEDGER_FILE} in ${dir}: --from-seed-state-dir takes the seed's state dir (the folder with its ${LEDGER_FILE} and state.json)`,
    );
  }
  const rows = parseSeedLedger(text, file);
  const carry = carryFromLedger(rows, config, started, await runSelections(rows, config));
  if (carry === null)
    throw new Error(
      `${file} holds no generation row: there is nothing to carry over; start the loop without --from-seed-state-dir`,
    );
  const generation = carry.state.generation;
  const notes: string[] = [];

  const own = path.resolve(config.state_dir);
  let copiedTo: string | null = null;
  if (own !== dir) {
    const copy = ledgerCopyPath(own);
    const seedText = text.endsWith('\n') || text === '' ? text : `${text}\n`;
    const existing = await readFile(copy, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (existing !== null && existing !== seedText && existing.startsWith(seedText)) {
      throw new Error(
        `the loop's state dir ${own} holds the seed's ledger and rows after it (${copy}): the seed was carried over into it already. ` +
          `'champion-loop start' without --from-seed-state-dir goes on from that copy.`,
      );
    }
    if (existing !== null && existing !== seedText) {
      throw new Error(
        `the loop's state dir ${own} already holds a ledger (${copy}) that is not the seed's: it is the record of a loop of its own. ` +
          `Carry the seed over into an empty state dir (state_dir in the loop.yaml), or move ${own} aside first.`,
      );
    }
    if (existing === null) {
      await writeWhole(copy, seedText);
      await writeWhole(
        stateCopyPath(own),
        `${JSON.stringify(stateJson(carry.state, own, updatedTime(rows)), null, 2)}\n`,
      );
    }
    copiedTo = copy;
  }

  // The generation's split stays the seed's (its job configs and eval reports were made on it).
  const split = path.join(dir, 'splits', `gen-${padGeneration(generation)}.yaml`);
  const carried = { ...carry, split: (await exists(split)) ? split : null };

  // Rounds the seed opened but recorded no run of (it stopped while they trained): their run
  // directories are the seed's, so new rounds start after them and never train over one.
  const onDisk = await roundsOnDisk(config.runs_root, generation);
  if (onDisk > carried.round) {
    notes.push(
      `run directories of generation ${generation} up to round ${onDisk} are under ${config.runs_root} but the ledger has runs up to round ${carried.round} only ` +
        `(the seed stopped while they trained): they are left as they are, and new rounds start at round ${onDisk + 1}`,
    );
  }
  const opening = rows.filter((row) => row.type === 'generation').at(-1);
  if (opening?.type === 'generation' && opening.split_seed - opening.generation !== config.base_seed) {
    notes.push(
      `loop.yaml's base_seed is ${config.base_seed} but the seed's was ${opening.split_seed - opening.generation} (its generation rows' split_seed): ` +
        `later generations' splits will not be the ones the seed would have drawn`,
    );
  }
  return {
    carry: { ...carried, round: Math.max(carried.round, onDisk) },
    ledger: file,
    rows: rows.length,
    copiedTo,
    notes,
  };
}

/**
 * Where `start --from-seed-state-dir` goes on from. Refused when the loop has history: a loop with
 * a record of its own goes on from that with a plain `start`.
 */
export async function seedResumption(
  client: Client,
  loopId: string,
  config: LoopConfig,
  seedStateDir: string,
): Promise<{ kind: 'resume'; carry: GenerationCarry; from: string; notes: string[] }> {
  const status = await client.workflow
    .getHandle(loopWorkflowId(loopId))
    .describe()
    .then(
      (description) => statusInWords(description.status.name),
      (error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return null;
        throw error;
      },
    );
  if (status !== null) {
    throw new Error(
      `loop '${loopId}' already has a history in Temporal (its last run is ${status}), so it has a record of its own: a seed loop is carried over only into a loop id that has none. ` +
        `'champion-loop start ${loopId}' (without --from-seed-state-dir) goes on from its own record; to carry the seed over, pick a new loop id.`,
    );
  }
  const over = await carryOverSeed(config, seedStateDir, new Date().toISOString());
  const copied = over.copiedTo ? `, copied to ${over.copiedTo}` : '';
  return {
    kind: 'resume',
    carry: over.carry,
    from: `the seed's ledger ${over.ledger} (${over.rows} rows${copied})`,
    notes: over.notes,
  };
}
