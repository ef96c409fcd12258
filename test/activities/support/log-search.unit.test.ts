import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logContains } from '../../../src/activities/support/log-search.js';
import { fixtureLoop } from '../fixture-loop.js';

describe('logContains', () => {
  it('finds a line that straddles two read chunks of a large log', async () => {
    const { workdir } = await fixtureLoop();
    const log = join(workdir, 'train.log');
    // 64 KiB is the read chunk size: the marker starts 5 bytes before its end.
    await writeFile(log, `${'x'.repeat(65536 - 5)}no eligible checkpoint\n`);
    expect(await logContains(log, 0, 'no eligible checkpoint')).toBe(true);
  });

  it('ignores what comes before the start offset', async () => {
    const { workdir } = await fixtureLoop();
    const log = join(workdir, 'train.log');
    await writeFile(log, 'no eligible checkpoint\nsecond attempt\n');
    expect(await logContains(log, 23, 'no eligible checkpoint')).toBe(false);
  });

  it('answers false for a log that does not exist', async () => {
    const { workdir } = await fixtureLoop();
    expect(await logContains(join(workdir, 'none.log'), 0, 'x')).toBe(false);
  });
});
