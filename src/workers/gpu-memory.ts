// What nvidia-smi says about one device's memory. The parsing is pure; reading runs nvidia-smi.
import { execa } from 'execa';

/** One device's memory in MiB. */
export interface GpuMemory {
  readonly index: number;
  readonly totalMiB: number;
  readonly usedMiB: number;
  readonly freeMiB: number;
}

/** One process using the device, as `--query-compute-apps` lists it. */
export interface GpuProcess {
  readonly pid: number;
  readonly usedMiB: number;
}

/**
 * What the memory guard sees: a device's memory (and, when nvidia-smi could say, the processes
 * using it and how much each holds), or that this machine has no GPU to guard.
 */
export type GpuReading =
  | { readonly kind: 'gpu'; readonly memory: GpuMemory; readonly processes?: readonly GpuProcess[] }
  | { readonly kind: 'no-gpu'; readonly reason: string }
  | { readonly kind: 'error'; readonly reason: string };

/** The query the guard runs (values in MiB, no header, no units). */
const NVIDIA_SMI_ARGS = ['--query-gpu=index,memory.total,memory.used,memory.free', '--format=csv,noheader,nounits'];
/** Its second query: the processes on the device and what each holds. */
const COMPUTE_APPS_ARGS = ['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits'];

/** Parse `nvidia-smi --query-gpu=index,memory.total,memory.used,memory.free --format=csv,noheader,nounits`. */
export function parseGpuMemory(csv: string): GpuMemory[] {
  return csv
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const fields = line.split(',').map((field) => Number(field.trim()));
      const [index, totalMiB, usedMiB, freeMiB] = fields;
      if (fields.length !== 4 || fields.some((value) => !Number.isFinite(value))) {
        throw new Error(`unexpected nvidia-smi line: ${JSON.stringify(line)}`);
      }
      return { index, totalMiB, usedMiB, freeMiB } as GpuMemory;
    });
}

/**
 * Parse `nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits`: one
 * `pid, MiB` line per process (none when nothing runs). A process whose memory nvidia-smi cannot
 * say (`[N/A]`, as under some containers and MIG) is left out: nothing is attributed to it.
 */
export function parseComputeApps(csv: string): GpuProcess[] {
  const processes: GpuProcess[] = [];
  for (const line of csv.split('\n').map((text) => text.trim())) {
    if (line === '' || /^no running/i.test(line)) continue;
    const fields = line.split(',').map((field) => field.trim());
    const [pid, usedMiB] = fields.map(Number);
    if (fields.length !== 2 || !Number.isSafeInteger(pid))
      throw new Error(`unexpected nvidia-smi line: ${JSON.stringify(line)}`);
    if (Number.isFinite(usedMiB)) processes.push({ pid: pid as number, usedMiB: usedMiB as number });
  }
  return processes;
}

/** The processes on a device, or undefined when nvidia-smi cannot list them (then nothing is attributed). */
async function readComputeApps(device: number, nvidiaSmi: string): Promise<GpuProcess[] | undefined> {
  const result = await execa(nvidiaSmi, [...COMPUTE_APPS_ARGS, '-i', String(device)], {
    reject: false,
    timeout: 20_000,
  });
  if (result.failed) return undefined;
  try {
    return parseComputeApps(result.stdout);
  } catch {
    return undefined;
  }
}

/**
 * Read one device's memory with nvidia-smi. No nvidia-smi at all reads as "no GPU" (a CPU lane);
 * nvidia-smi failing or not knowing the device is an error, never silently a CPU lane.
 */
export async function readGpuMemory(device: number, nvidiaSmi = 'nvidia-smi'): Promise<GpuReading> {
  const result = await execa(nvidiaSmi, [...NVIDIA_SMI_ARGS, '-i', String(device)], { reject: false, timeout: 20_000 });
  if ((result as { code?: string }).code === 'ENOENT') return { kind: 'no-gpu', reason: `${nvidiaSmi} not found` };
  if (result.failed) {
    return {
      kind: 'error',
      reason: `${nvidiaSmi} -i ${device} exit ${result.exitCode}: ${(result.stdout || result.stderr).trim()}`,
    };
  }
  try {
    const memory = parseGpuMemory(result.stdout).find((entry) => entry.index === device);
    if (!memory) return { kind: 'error', reason: `${nvidiaSmi} did not list device ${device}` };
    const processes = await readComputeApps(device, nvidiaSmi);
    return processes ? { kind: 'gpu', memory, processes } : { kind: 'gpu', memory };
  } catch (error) {
    return { kind: 'error', reason: (error as Error).message };
  }
}

/**
 * Whether a reading leaves room for one more job once `heldGiB` (what jobs already admitted hold,
 * allocated or not) is taken off the free memory (no GPU: slots alone decide).
 */
export function hasRoom(reading: GpuReading, minFreeGiB: number, heldGiB = 0): boolean {
  if (reading.kind === 'no-gpu') return true;
  return reading.kind === 'gpu' && reading.memory.freeMiB - heldGiB * 1024 >= minFreeGiB * 1024;
}
