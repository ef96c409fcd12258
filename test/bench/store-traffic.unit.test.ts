import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendLogLine } from '../../src/activities/support/reports.js';
import { fetchedLine, logTraffic, uploadedLine } from '../../src/activities/support/step-files.js';
import { storeTraffic } from '../../bench/lib/store-traffic.js';

describe("the store traffic a loop's step logs record", () => {
  it('sums the bytes of the lines steps write, in every log of the state dir', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'store-traffic-'));
    try {
      const train = path.join(stateDir, 'logs', 'champ-g001-r0001-base.train.log');
      const evalLog = path.join(stateDir, 'logs', 'champ-g001-r0001-base.test.eval.log');
      await appendLogLine(train, 'epoch 1/1');
      await appendLogLine(train, uploadedLine(5, 1360));
      await appendLogLine(evalLog, fetchedLine(1519, 7));
      await appendLogLine(evalLog, uploadedLine(2, 0));
      await appendLogLine(evalLog, fetchedLine(11, 1));
      expect(logTraffic(await readFile(evalLog, 'utf8'))).toEqual({ uploaded: 0, fetched: 1530 });
      expect(await storeTraffic(stateDir)).toEqual({ uploaded: 1360, fetched: 1530 });
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
