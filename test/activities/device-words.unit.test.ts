// Issue 43: a lane step's heartbeat says its device in words (`gpu`), which the Web UI shows.
import { describe, expect, it } from 'vitest';
import { deviceWords } from '../../src/activities/support/device-words.js';

const device = { index: 0, totalMiB: 143_771, freeMiB: 60_211, heldMiB: 30_000, needMiB: 40_960 };
const now = Date.parse('2026-12-05T13:20:00Z');

describe("a step's device in its heartbeat", () => {
  it('says a running step, what it holds of its need and the device', () => {
    expect(deviceWords({ step: 'train', pid: 7, pgid: 7, elapsedMs: 12 * 60_000 }, device, now)).toBe(
      'train running since 13:08:00Z (12m), holds 30000 of 40960 MiB; device 0: 143771 MiB, free 60211, as the lane last read it',
    );
  });

  it('says a step waiting for memory, since when and what it needs', () => {
    const waiting = { step: 'evaluate', pid: 0, pgid: 0, elapsedMs: 40_000, waiting: 'waiting for GPU memory: ...' };
    expect(deviceWords(waiting, { ...device, heldMiB: 0, needMiB: 65_536 }, now)).toBe(
      'evaluate waiting for GPU memory since 13:19:20Z (40s), needs 65536 MiB; device 0: 143771 MiB, free 60211, as the lane last read it',
    );
  });
});
