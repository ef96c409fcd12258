import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { DEV_CONFIG_ENV } from '../../src/devserver/background.js';
import { loadDevServerConfig } from '../../src/devserver/dev-config.js';
import { freePort, serverAnswers } from '../../src/devserver/dev-server.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';
import { STACK_FRAME } from '../helpers/files-and-errors.js';

// `npm run dev-server -- start` (what `npm run demo` uses too) as a person runs it, on a config
// of its own (free ports, a temp database): it must give the prompt back while the server keeps
// answering in the background, detached in its own process group, with a log and a pid file.

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run dev-server -- start', () => {
  let dir: string;
  let env: Record<string, string>;
  let address: string;
  let namespace: string;
  const pidOf = async () => Number((await readFile(path.join(dir, 'dev-server.pid'), 'utf8').catch(() => '')).trim());
  // The command as `npm run dev-server -- ARGS` runs it; a command that does not exit is killed after `timeout`.
  const devServer = (args: string[], timeout: number, extraEnv: Record<string, string> = {}) =>
    execa(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'scripts', 'dev-server.ts'), ...args], {
      cwd: PROJECT_ROOT,
      env: { ...env, ...extraEnv },
      reject: false,
      timeout,
      stdin: 'ignore',
    });

  // A config on a database of its own (no server runs on it), for cases about ports alone.
  let otherDbEnv: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-devserver-'));
    const base = await loadDevServerConfig(path.join(PROJECT_ROOT, 'temporal-dev.yaml'));
    const config = {
      ...base,
      port: await freePort(),
      ui_port: await freePort(),
      db_filename: path.join(dir, 'dev-server.sqlite'),
    };
    const configFile = path.join(dir, 'temporal-dev.yaml');
    await writeFile(configFile, stringify(config));
    const otherConfigFile = path.join(dir, 'other-db.yaml');
    await writeFile(
      otherConfigFile,
      stringify({ ...config, db_filename: path.join(dir, 'other', 'dev-server.sqlite') }),
    );
    otherDbEnv = { [DEV_CONFIG_ENV]: otherConfigFile };
    env = { [DEV_CONFIG_ENV]: configFile, TEMPORAL_CLI: inject('temporalCli') };
    address = `${config.ip}:${config.port}`;
    namespace = config.namespace;
  });

  afterAll(async () => {
    const pid = await pidOf();
    if (pid && alive(pid)) {
      await devServer(['stop'], 30_000);
      if (alive(pid)) process.kill(-pid, 'SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the prompt once the server answers; the server keeps serving, detached, with its log and pid file', async () => {
    const started = await devServer(['start'], 60_000);
    expect(started.timedOut, `still running after 60 s; it printed: ${started.stdout}`).toBe(false);
    expect(started.exitCode).toBe(0);
    expect(started.stdout).toContain(`Started Temporal dev server at ${address}, namespace ${namespace}`);
    expect(started.stdout).toContain('stop it with: npm run dev-server -- stop');
    // The command is gone; the server it started is not.
    expect(await serverAnswers(address, namespace)).toBe(true);
    const pid = await pidOf();
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(true);
    // Its own session and process group (a terminal's Ctrl-C or hang-up does not reach it).
    const { stdout } = await execa('ps', ['-o', 'pgid=,sid=', '-p', String(pid)]);
    expect(stdout.trim().split(/\s+/).map(Number)).toEqual([pid, pid]);
    expect(existsSync(path.join(dir, 'dev-server.log'))).toBe(true);
  });

  it('a port another program holds: one line naming the port and the flag that chooses another, no stack trace, nothing started (issue 23)', async () => {
    // Another program on the port: it takes connections and drops them.
    const squatter = createServer((socket) => socket.destroy());
    const taken = await freePort();
    await new Promise<void>((resolve) => squatter.listen(taken, '127.0.0.1', resolve));
    try {
      // On a database no server runs on: a second server on the first's is refused before its ports are looked at.
      const refused = await devServer(
        ['start', '--port', String(taken), '--ui-port', String(await freePort())],
        30_000,
        otherDbEnv,
      );
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(
        `npm run dev-server: port ${taken} (port) is taken by another program, so the dev server cannot listen there. ` +
          `Stop that program, or choose another port: npm run dev-server -- start --port ${taken + 1}`,
      );
      expect(refused.stderr).toContain('Nothing was started.');
      expect(refused.stderr).not.toMatch(STACK_FRAME);
      const help = await devServer(['start', '--help'], 30_000);
      expect(help.stdout).toContain('--port <port>');
      expect(help.stdout).toContain('--ui-port <port>');
      expect(help.stdout).toContain('CHAMPION_LOOP_DEV_CONFIG');
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });

  it('a second server on the same database, at other ports: refused, naming the database and where the running one is; its pid file kept (issue 48)', async () => {
    const pid = await pidOf();
    const port = await freePort();
    const refused = await devServer(['start', '--port', String(port), '--ui-port', String(await freePort())], 30_000);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `npm run dev-server: a dev server already runs on the database ${path.join(dir, 'dev-server.sqlite')}: at ${address}`,
    );
    expect(refused.stderr).toContain(`pid ${pid}`);
    expect(refused.stderr).toContain(`--address ${address}`);
    expect(refused.stderr).toContain('npm run dev-server -- stop');
    expect(refused.stderr).toContain('Nothing was started.');
    expect(refused.stderr).not.toMatch(STACK_FRAME);
    expect(await serverAnswers(`127.0.0.1:${port}`, namespace)).toBe(false);
    expect(await pidOf()).toBe(pid);
    // In the foreground (no command) likewise.
    const foreground = await devServer(['--port', String(port), '--ui-port', String(await freePort())], 30_000);
    expect(foreground.exitCode).toBe(1);
    expect(foreground.stderr).toContain(`a dev server already runs on the database`);
    expect(foreground.stderr).toContain(`at ${address}`);
    // `stop --port` naming another port than the server's: nothing stopped, the right command said.
    const wrongStop = await devServer(['stop', '--port', String(port)], 30_000);
    expect(wrongStop.exitCode).toBe(1);
    expect(wrongStop.stderr).toContain(`no dev server of this project runs at 127.0.0.1:${port}`);
    expect(wrongStop.stderr).toContain(`npm run dev-server -- stop --port ${address.split(':')[1]}`);
    expect(alive(pid)).toBe(true);
    expect(await pidOf()).toBe(pid);
  });

  it('start again reports the running server at once; stop stops it', async () => {
    const again = await devServer(['start'], 30_000);
    expect(again.timedOut).toBe(false);
    expect(again.stdout).toContain(`Already running: Temporal dev server at ${address}`);
    const pid = await pidOf();
    const stopped = await devServer(['stop'], 30_000);
    expect(stopped.stdout).toBe('Stopped the dev server.');
    expect(alive(pid)).toBe(false);
    expect(await serverAnswers(address, namespace)).toBe(false);
    expect(existsSync(path.join(dir, 'dev-server.pid'))).toBe(false);
  });

  it('`stop --port N` after `start --port N` stops that server (issue 47: it was an unknown option)', async () => {
    const port = await freePort();
    const started = await devServer(['start', '--port', String(port), '--ui-port', String(await freePort())], 60_000);
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.stdout).toContain(`Started Temporal dev server at 127.0.0.1:${port}`);
    const pid = await pidOf();
    expect(alive(pid)).toBe(true);
    const status = await devServer(['status', '--port', String(port)], 30_000);
    expect(status.stdout).toBe(`up at 127.0.0.1:${port}`);
    const stopped = await devServer(['stop', '--port', String(port)], 30_000);
    expect(stopped.stderr).toBe('');
    expect(stopped.stdout).toBe('Stopped the dev server.');
    expect(alive(pid)).toBe(false);
    expect(await serverAnswers(`127.0.0.1:${port}`, namespace)).toBe(false);
  });

  it('a pid file whose process is no dev server (its number reused): stop signals nothing and says none runs', async () => {
    // This test process stands in for the unrelated process that got the number.
    await writeFile(path.join(dir, 'dev-server.pid'), `${process.pid}\n`);
    const stopped = await devServer(['stop'], 30_000);
    expect(stopped.stdout).toBe('No background dev server started by this project is running.');
    expect(existsSync(path.join(dir, 'dev-server.pid'))).toBe(false);
  });
});
