import { execa } from 'execa';

/** What a lane probe saw: the command's exit code and the first KiB of its output. */
export interface ProbeResult {
  readonly exitCode: number;
  readonly output: string;
  readonly cudaVisibleDevices: string | null;
}

/**
 * Run one command on this worker (no shell) and report how it went: proves a lane can run subprocesses.
 * @public registered as an activity through the module namespace (`...probe`)
 */
export async function probeLane(command: readonly string[]): Promise<ProbeResult> {
  const [program, ...args] = command;
  if (!program) throw new Error('probeLane needs a command');
  const result = await execa(program, args, { reject: false, all: true, timeout: 60_000 });
  return {
    exitCode: result.exitCode ?? -1,
    output: (result.all ?? '').slice(0, 1024),
    cudaVisibleDevices: process.env.CUDA_VISIBLE_DEVICES ?? null,
  };
}
