// Average gate margins per message id over several scores files into a teacher JSONL
// ({id, margin}) that students train toward.
import process from 'node:process';
import { CliArgs, UsageError } from './lib/args.js';
import { runMain } from './lib/cli.js';
import { asRecord, needNumber, needString } from './lib/check.js';
import { jsonlText, readJsonl, writeAtomic } from './lib/files.js';
import { round6 } from './lib/random.js';

await runMain('teacher-scores', (argv) => {
  const args = new CliArgs(argv, { inputs: 'many', output: 'one' });
  const inputs = args.list('inputs');
  if (inputs.length === 0) throw new UsageError('--inputs needs at least one scores file');
  const output = args.need('output');
  const totals = new Map<string, { sum: number; count: number }>();
  for (const input of inputs) {
    for (const line of readJsonl(input, 'scores file')) {
      const row = asRecord(line, `scores file ${input}`);
      const id = needString(row, 'id', input);
      const entry = totals.get(id) ?? { sum: 0, count: 0 };
      entry.sum += needNumber(row, 'margin', input);
      entry.count += 1;
      totals.set(id, entry);
    }
  }
  const rows = [...totals].map(([id, { sum, count }]) => ({ id, margin: round6(sum / count) }));
  writeAtomic(output, jsonlText(rows));
  process.stdout.write(`teacher scores ${output} items=${rows.length} inputs=${inputs.length}\n`);
});
