#!/usr/bin/env node
// @ts-check
/**
 * Process guard: `node process-guard.mjs [--log FILE] [--] PROGRAM [ARGS...]`, started detached so
 * that it leads a process group of its own. It runs the command in that group, the command's
 * stdout and stderr appended to FILE, and takes the whole group down:
 *
 * - when the command ends, its status goes to the guard's stdout as one JSON line and every
 *   process left in the group (the command's own children) is killed, the guard included;
 * - when stdin closes, the group is killed at once: the worker holds the other end of that pipe,
 *   and the OS closes it when the worker dies, even by `kill -9`;
 * - SIGTERM, SIGINT and SIGHUP do not stop the guard: a signal sent to the group reached the
 *   command too, and the guard must outlive the command to clean up after it.
 *
 * Its stdout also gets `{"pid": N}` (the command's pid) once the command started. Without
 * `--log` the command shares the guard's stdout and stderr, nothing is reported, and the guard
 * exits with the command's exit code or signal instead.
 */
import { spawn } from 'node:child_process';
import { openSync, writeSync } from 'node:fs';
import process from 'node:process';

const argv = process.argv.slice(2);
const log = argv[0] === '--log' ? argv[1] : undefined;
const rest = argv.slice(log === undefined ? 0 : 2);
const [program, ...args] = rest[0] === '--' ? rest.slice(1) : rest;

if (program === undefined || (argv[0] === '--log' && log === undefined)) {
  process.stderr.write('process-guard: usage: node process-guard.mjs [--log FILE] [--] PROGRAM [ARGS...]\n');
  process.exit(2);
}

/** @type {number | 'inherit'} */
let output = 'inherit';
if (log !== undefined) {
  try {
    output = openSync(log, 'a');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    report({ error: 'ELOG', message: `cannot open the log: ${message}` });
    process.exit(2);
  }
}
const reporting = log !== undefined;

for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) {
  process.on(signal, () => undefined);
}

process.stdin.on('end', killGroup);
process.stdin.on('close', killGroup);
process.stdin.on('error', killGroup);
process.stdin.resume();

const child = spawn(program, args, { stdio: ['ignore', output, output] });

child.on('spawn', () => {
  if (reporting) report({ pid: child.pid });
});

child.on('error', (error) => {
  const code = /** @type {NodeJS.ErrnoException} */ (error).code ?? 'ESPAWN';
  say(`process-guard: cannot start ${program}: ${error.message}`);
  finish({ error: code, message: error.message }, code === 'ENOENT' ? 127 : 126, null);
});

child.on('exit', (code, signal) => {
  finish({ code, signal }, code, signal);
});

/**
 * Report the outcome, then end the group; without a status pipe, exit as the command did.
 * @param {Record<string, unknown>} status
 * @param {number | null} code
 * @param {NodeJS.Signals | null} signal
 */
function finish(status, code, signal) {
  if (reporting && report(status)) {
    killGroup();
    return;
  }
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
}

/**
 * @param {Record<string, unknown>} status
 * @returns {boolean} whether the status pipe took it
 */
function report(status) {
  try {
    writeSync(1, `${JSON.stringify(status)}\n`);
    return true;
  } catch {
    return false;
  }
}

/** @param {string} message */
function say(message) {
  try {
    writeSync(typeof output === 'number' ? output : 2, `${message}\n`);
  } catch {
    // Nowhere left to say it.
  }
}

function killGroup() {
  try {
    process.kill(-process.pid, 'SIGKILL');
  } catch {
    // Not a group leader (started without `detached`): the command at least goes with us.
    child.kill('SIGKILL');
    process.exit(137);
  }
}
