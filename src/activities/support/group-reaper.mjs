#!/usr/bin/env node
// @ts-check
/**
 * Group reaper: `node group-reaper.mjs`, one per worker process, started detached (a process
 * group of its own) with its stdin a pipe from the worker. The worker writes one line per change:
 * `+PGID` when a step's process group starts, `-PGID` once it has ended and been cleaned up.
 *
 * When stdin closes, every group still registered gets SIGKILL and the reaper exits: the worker
 * holds the other end of that pipe, and the OS closes it when the worker ends, even by `kill -9`.
 * So a step never outlives its worker, and a step's start costs no process of its own.
 *
 * SIGTERM, SIGINT and SIGHUP do not stop the reaper: they are meant for the worker, which stops
 * its steps itself; the reaper must outlive the worker to clean up after it.
 */
import process from 'node:process';
import { killStepCgroup } from './step-cgroup.mjs';
import { killMarked } from './step-survivors.mjs';

/** Running steps' groups and their marks. @type {Map<number, string>} */
const groups = new Map();
let pending = '';

for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) {
  process.on(signal, () => undefined);
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (/** @type {string} */ chunk) => {
  pending += chunk;
  let newline = pending.indexOf('\n');
  while (newline >= 0) {
    apply(pending.slice(0, newline).trim());
    pending = pending.slice(newline + 1);
    newline = pending.indexOf('\n');
  }
});
process.stdin.on('end', reapAll);
process.stdin.on('close', reapAll);
process.stdin.on('error', reapAll);

/** @param {string} line */
function apply(line) {
  const [group = '', mark = ''] = line.slice(1).split(' ');
  const pgid = Number(group);
  // Group 0 and 1 are never a step's: a bad line must not become `kill(-1)`.
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return;
  if (line.startsWith('+')) groups.set(pgid, mark);
  else if (line.startsWith('-')) groups.delete(pgid);
}

function reapAll() {
  if (pending !== '') apply(pending.trim());
  for (const [pgid, mark] of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // ESRCH: that group is gone already.
    }
    if (mark !== '') {
      // What left the group: its cgroup (where steps have one), then whatever carries its mark.
      killStepCgroup(mark, undefined, 2000);
      killMarked(mark);
    }
  }
  process.exit(0);
}
