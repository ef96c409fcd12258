import { describe, expect, it } from 'vitest';
import { deviceJson, deviceLines, laneDevices, type JobOnDevice } from '../../src/client/render-devices.js';

const now = new Date('2026-12-05T13:20:00Z');
const at = (time: string) => Date.parse(`2026-12-05T${time}Z`);
const card = { index: 0, totalMiB: 143771, freeMiB: 60211 };
const lane = 'champion-loop.demo.gpu0';

const jobs: JobOnDevice[] = [
  {
    jobId: 'a-g1r1',
    lane,
    state: 'running',
    step: 'train',
    sinceMs: at('13:08:00'),
    device: { ...card, heldMiB: 30000, needMiB: 40960 },
    beatMs: at('13:19:58'),
  },
  {
    jobId: 'b-g1r1',
    lane,
    state: 'running',
    step: 'evaluate',
    sinceMs: at('13:15:00'),
    // An older beat: its own held memory counts, the card's figures come from the freshest beat.
    device: { index: 0, totalMiB: 143771, freeMiB: 70000, heldMiB: 22000, needMiB: 24576 },
    beatMs: at('13:19:50'),
  },
  {
    jobId: 'c-g1r1',
    lane,
    state: 'waiting',
    step: 'train',
    sinceMs: at('13:19:00'),
    device: { ...card, heldMiB: 0, needMiB: 65536 },
    beatMs: at('13:19:55'),
  },
  { jobId: 'd-g1r1', lane, state: 'starting', sinceMs: at('13:19:57') },
  // A CPU lane: no job on it reported a device, so it has no device line.
  { jobId: 'e-g1r1', lane: 'champion-loop.demo.cpu', state: 'running', step: 'train', sinceMs: at('13:00:00') },
];

describe("a GPU lane's device in status", () => {
  it('sums what this loop holds and says what the rest of the used memory is', () => {
    const [device, ...more] = laneDevices(jobs);
    expect(more).toEqual([]);
    expect(device).toMatchObject({
      lane,
      totalMiB: 143771,
      freeMiB: 60211,
      thisLoopMiB: 52000,
      thisLoopJobs: 2,
      othersMiB: 143771 - 60211 - 52000,
    });
  });

  it('prints a device line per lane and a line per job: what it does, since when, its need', () => {
    const lines = deviceLines(laneDevices(jobs), now);
    console.log(lines.join('\n'));
    expect(lines).toEqual([
      'gpu lane champion-loop.demo.gpu0, device 0: 143771 MiB, free 60211, this loop 52000 (2 jobs), others 31560',
      '  a-g1r1 running train since 13:08:00 (12m), holds 30000 of 40960 MiB',
      '  b-g1r1 running evaluate since 13:15:00 (5m), holds 22000 of 24576 MiB',
      '  c-g1r1 waiting for memory to train since 13:19:00 (1m), needs 65536 MiB',
      '  d-g1r1 starting since 13:19:57 (3s)',
    ]);
  });

  it('gives --json the same as fields', () => {
    const [json] = deviceJson(laneDevices(jobs));
    expect(json).toMatchObject({
      lane,
      device: 0,
      total_mib: 143771,
      free_mib: 60211,
      this_loop_mib: 52000,
      this_loop_jobs: 2,
      others_mib: 31560,
    });
    expect((json as { jobs: unknown[] }).jobs[2]).toEqual({
      job_id: 'c-g1r1',
      state: 'waiting',
      step: 'train',
      since: '2026-12-05T13:19:00.000Z',
      need_mib: 65536,
      held_mib: 0,
    });
  });

  it('says nothing of lanes none of whose jobs reported a device', () => {
    expect(deviceLines(laneDevices(jobs.slice(3)), now)).toEqual([]);
  });
});
