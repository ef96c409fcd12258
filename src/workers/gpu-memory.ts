// What nvidia-smi says about one device's memory. The parsing is pure; reading runs nvidia-smi.
import { execa } from 'execa';

/** One device's memory in MiB. */
export interface GpuMemory {
  readonly index: number;
  readonly totalMiB: number;
  readonly usedMiB: number;
  readonly freeMiB: number;
}

/** What the memory guard sees: a device's memory, or that this machine has no GPU to guard. */
export type GpuReading =
  | { readonly kind: 'gpu'; readonly memory: GpuMemory }
  | { readonly kind: 'no-gpu'; readonly reason: string }
  | { readonly kind: 'error'; readonly reason: string };

/** The query the guard runs (values in MiB, no header, no units). */
const NVIDIA_SMI_ARGS = ['--query-gpu=index,memory.total,memory.used,memory.free', '--format=csv,noheader,nounits'];

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
    return memory ? { kind: 'gpu', memory } : { kind: 'error', reason: `${nvidiaSmi} did not list device ${device}` };
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
