import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lanesOf, pickLane, type Lane } from '../../src/workflows/lanes.js';

const lane = (queue: string, slots: number): Lane => ({ queue, slots });

/** Up to five lanes with distinct queues, what runs on each, which are down, and a preferred one. */
const situation = fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 0, maxLength: 5 }).chain((slots) =>
  fc.record({
    lanes: fc.constant(slots.map((count, index) => lane(`q${index}`, count))),
    busy: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: slots.length, maxLength: slots.length }),
    down: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: slots.length, maxLength: slots.length }),
    now: fc.integer({ min: 0, max: 20 }),
    preferred: fc.oneof(
      fc.constant(null),
      fc.constant('elsewhere'),
      ...slots.map((_, index) => fc.constant(`q${index}`)),
    ),
  }),
);

describe('pickLane', () => {
  it('takes a free, up lane: the preferred one if it can, else the one with most free slots, first declared on a tie', () => {
    fc.assert(
      fc.property(situation, ({ lanes, busy, down, now, preferred }) => {
        const busyMap = new Map(lanes.map((l, index) => [l.queue, busy[index] ?? 0]));
        const downUntil = Object.fromEntries(lanes.map((l, index) => [l.queue, down[index] ?? 0]));
        const free = (l: Lane) => l.slots - (busyMap.get(l.queue) ?? 0);
        const usable = lanes.filter((l) => free(l) > 0 && (downUntil[l.queue] ?? 0) <= now);
        const picked = pickLane(lanes, busyMap, downUntil, now, preferred);
        if (usable.length === 0) {
          expect(picked).toBeNull();
          return;
        }
        const wanted = usable.find((l) => l.queue === preferred);
        const most = Math.max(...usable.map(free));
        expect(picked).toBe(wanted ?? usable.find((l) => free(l) === most));
      }),
    );
  });

  it('counts a lane missing from the busy map as idle and one missing from downUntil as up', () => {
    const lanes = [lane('a', 1), lane('b', 2)];
    expect(pickLane(lanes, new Map(), {}, 0, null)).toBe(lanes[1]);
    expect(pickLane(lanes, new Map([['b', 2]]), {}, 0, null)).toBe(lanes[0]);
    expect(pickLane(lanes, new Map([['b', 2]]), { a: 5 }, 4, null)).toBeNull();
    // Down until `now` means up again at `now`.
    expect(pickLane(lanes, new Map([['b', 2]]), { a: 5 }, 5, null)).toBe(lanes[0]);
  });

  it('passes over a preferred lane that is full or down', () => {
    const lanes = [lane('a', 1), lane('b', 1)];
    expect(pickLane(lanes, new Map([['b', 1]]), {}, 0, 'b')).toBe(lanes[0]);
    expect(pickLane(lanes, new Map(), { b: 10 }, 0, 'b')).toBe(lanes[0]);
    expect(pickLane(lanes, new Map(), {}, 0, 'b')).toBe(lanes[1]);
  });
});

describe('lanesOf', () => {
  it("makes each declared lane's task queue from its host and device, in order, with its slots", () => {
    const config = {
      lanes: [
        { host: 'box-a', device: 0, slots: 2 },
        { host: 'box-a', device: 1, slots: 1 },
        { host: 'box-b', device: 0, slots: 3 },
      ],
    } as unknown as Parameters<typeof lanesOf>[0];
    expect(lanesOf(config)).toEqual([
      { queue: 'champion-loop.box-a.gpu0', slots: 2 },
      { queue: 'champion-loop.box-a.gpu1', slots: 1 },
      { queue: 'champion-loop.box-b.gpu0', slots: 3 },
    ]);
    expect(lanesOf({ lanes: [] })).toEqual([]);
  });
});
