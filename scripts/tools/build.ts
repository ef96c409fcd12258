// The tools built from source for the tests, built ahead in the background so that type-checking,
// lint and the tests that need none of them overlap the builds (`npm test` starts this first; the
// tests that need a tool wait for its build, ../lib/tool-cache.ts's lock).
//   tsx scripts/tools/build.ts               build them now, in the foreground (weed, Jaeger)
//   tsx scripts/tools/build.ts --cluster     and the Temporal server and its SQL tool (test:cluster)
//   tsx scripts/tools/build.ts --background  start that as a niced, detached process and return
//                                            (nothing when one is running already)
// A background build writes its lines to <tool cache>/background-build.log.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureServer } from '../cluster/provision.js';
import { ensureWeed } from '../object-store/provision.js';
import { ensureJaeger } from '../tracing/provision.js';
import { toolsRoot } from '../lib/tool-cache.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';

/** Whether `pid` is a background build still running (a pid file's number may have been reused since). */
async function building(pid: number): Promise<boolean> {
  const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return command.includes('scripts/tools/build.ts');
}

/** Start the niced background build unless one is running; returns at once. */
export async function startBackgroundBuilds(options: { cluster: boolean }): Promise<void> {
  const root = toolsRoot();
  await mkdir(root, { recursive: true });
  const pidFile = path.join(root, 'background-build.pid');
  const running = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (running > 0 && (await building(running))) return;
  const log = openSync(path.join(root, 'background-build.log'), 'a');
  const args = ['-n', '10', process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url)];
  if (options.cluster) args.push('--cluster');
  const child = spawn('nice', args, { cwd: PROJECT_ROOT, detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  // Without `nice` (or a process to spare) nothing is built ahead: each test builds what it needs.
  child.on('error', (error) => console.error(`[provision] no background build: ${error.message}`));
  child.unref();
  if (child.pid !== undefined) await writeFile(pidFile, String(child.pid));
  console.error(
    `[provision] building the tools in the background (pid ${child.pid ?? '?'}; ${path.join(root, 'background-build.log')})`,
  );
}

async function buildAll(cluster: boolean): Promise<void> {
  const say = (line: string) => console.error(`[build ${new Date().toISOString()}] ${line}`);
  const started = Date.now();
  say(`building into ${toolsRoot()}${cluster ? ' (with the Temporal server)' : ''}`);
  let failed = false;
  const tasks: [string, () => Promise<unknown>][] = [
    ['weed', () => ensureWeed(say)],
    ['jaeger', () => ensureJaeger(say)],
  ];
  if (cluster) tasks.push(['temporal-server', () => ensureServer(say)]);
  // One after another: two Go builds at once would take both cores from the tests.
  for (const [name, task] of tasks) {
    const at = Date.now();
    try {
      const result = await task();
      say(`${name} ready in ${Math.round((Date.now() - at) / 1000)} s: ${JSON.stringify(result)}`);
    } catch (error) {
      failed = true;
      say(`${name} failed (the tests that need it build it again and say why): ${(error as Error).message}`);
    }
  }
  say(`done in ${Math.round((Date.now() - started) / 1000)} s`);
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const cluster = process.argv.includes('--cluster');
  if (process.argv.includes('--background')) await startBackgroundBuilds({ cluster });
  else await buildAll(cluster);
}
