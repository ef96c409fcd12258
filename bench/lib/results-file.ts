// A bench run's results: the summary (figures with their goals, the machine, the run's facts) in
// `out`, which is committed, and every sample and table behind it in `<out>.details.json`
// beside it, which is not (.gitignore): the details of one run on one box are for the person
// who ran it, and they changed with every run.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Where the details of results written to `out` go: `latest.json` -> `latest.details.json`. */
function detailsFile(out: string): string {
  return `${out.replace(/\.json$/, '')}.details.json`;
}

/** Write `summary` to `out` and `details` to its details file; returns the details file. */
export async function writeResults(
  out: string,
  summary: Readonly<Record<string, unknown>>,
  details: Readonly<Record<string, unknown>>,
): Promise<string> {
  await mkdir(path.dirname(out), { recursive: true });
  const file = detailsFile(out);
  await writeFile(out, `${JSON.stringify(summary, null, 2)}\n`);
  // The run's time, where the summary has one, ties the two files together.
  const when = summary.when === undefined ? {} : { when: summary.when };
  await writeFile(file, `${JSON.stringify({ ...when, ...details }, null, 1)}\n`);
  return file;
}
