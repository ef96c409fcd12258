#!/usr/bin/env node
// @ts-check
/** Average gate margins per item id over several scores files into a teacher JSONL. */
import process from 'node:process';
import { CliArgs, UsageError } from './lib/args.mjs';
import { asRecord, needNumber, needString } from './lib/check.mjs';
import { runMain } from './lib/cli.mjs';
import { crash, fail, faultMode, hang } from './lib/faults.mjs';
import { jsonlText, readJsonl, writeText } from './lib/files.mjs';
import { round6 } from './lib/random.mjs';

await runMain('teacher-scores', async (argv) => {
  const args = new CliArgs(argv, { inputs: 'many', output: 'one' });
  const inputs = args.list('inputs');
  if (inputs.length === 0) throw new UsageError('--inputs needs at least one scores file');
  const output = args.need('output');
  const mode = faultMode('TEACHER', [], undefined);
  if (mode === 'fail') fail('teacher');
  if (mode === 'hang') await hang('teacher');
  /** @type {Map<string, { sum: number, count: number }>} */
  const totals = new Map();
  for (const input of inputs) {
    for (const row of readJsonl(input, 'scores file')) {
      const record = asRecord(row, `scores file ${input}`);
      const id = needString(record, 'id', input);
      const entry = totals.get(id) ?? { sum: 0, count: 0 };
      entry.sum += needNumber(record, 'margin', input);
      entry.count += 1;
      totals.set(id, entry);
    }
  }
  const rows = [...totals].map(([id, { sum, count }]) => ({ id, margin: round6(sum / count) }));
  if (mode === 'crash') {
    writeText(output, jsonlText(rows.slice(0, Math.floor(rows.length / 2))));
    await crash('teacher');
  }
  writeText(output, jsonlText(rows));
  process.stdout.write(`teacher scores ${output} items=${rows.length} inputs=${inputs.length}\n`);
});
