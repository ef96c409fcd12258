import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { STACK_FRAME } from '../helpers/files-and-errors.js';

// `champion-loop status L | head -1`: the reader closes the pipe before the command has written
// everything. Issue 23: the command ended on an unhandled EPIPE stack trace.
const BIN = fileURLToPath(new URL('../../bin/champion-loop.js', import.meta.url));
const LEDGER = fileURLToPath(new URL('../fixtures/ledger/seed-ledger.jsonl', import.meta.url));

describe('a reader that closes the pipe early', () => {
  it('ends the command quietly: no stack trace, the exit code of a command that succeeded', async () => {
    const child = execa(process.execPath, [BIN, 'state', '--from-ledger', LEDGER], { reject: false });
    // Closed before the command writes a byte: every write it makes meets a closed pipe.
    child.stdout?.destroy();
    const result = await child;
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.exitCode).toBe(0);
  });
});
