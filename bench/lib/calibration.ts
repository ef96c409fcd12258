// How fast this machine is right now, so that absolute figures from two boxes (or two runs on a
// busy one) can be compared: the time of a fixed single-threaded workload, and the load average.
import { createHash } from 'node:crypto';
import os from 'node:os';

export interface Calibration {
  /** Median time of the fixed workload over five tries (ms): hashing 32 MiB and a JSON round trip of 20,000 rows. */
  readonly workloadMs: number;
  /** 1-minute load average when it was taken. */
  readonly load1: number;
  readonly cores: number;
  readonly when: string;
}

function workload(): void {
  const block = Buffer.alloc(1 << 20, 7);
  const hash = createHash('sha256');
  for (let i = 0; i < 32; i += 1) hash.update(block);
  hash.digest();
  const rows = Array.from({ length: 20_000 }, (_, i) => ({
    run_id: `run-${i}`,
    result: { fail_to_pass_count: i % 17, pass_to_fail_count: i % 23 },
    finished: new Date(i * 1000).toISOString(),
  }));
  JSON.parse(JSON.stringify(rows));
}

export function calibrate(): Calibration {
  const times: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const start = process.hrtime.bigint();
    workload();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return {
    workloadMs: times[2] ?? 0,
    load1: os.loadavg()[0] ?? 0,
    cores: os.cpus().length,
    when: new Date().toISOString(),
  };
}

/** One line for the log and the table's header. */
export function describeCalibration(label: string, calibration: Calibration): string {
  return `${label}: fixed workload ${calibration.workloadMs.toFixed(0)} ms, load average ${calibration.load1.toFixed(2)} on ${calibration.cores} cores`;
}
