// Whether a step's output says it ran out of GPU memory, and how much its last allocation asked
// for: the stacks' own words (docs/contract.md, "GPU memory"). Pure: the lane reads the log.

/** What the frameworks print when a device allocation fails. */
const FRAMEWORK_OOM: readonly RegExp[] = [
  // PyTorch: `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 45.00 GiB. ...`
  /OutOfMemoryError/,
  /CUDA out of memory/i,
  // JAX / XLA: `RESOURCE_EXHAUSTED: Out of memory while trying to allocate 48318382080 bytes.`
  /RESOURCE_EXHAUSTED/,
  // The CUDA runtime and driver themselves.
  /CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation/,
];

const UNIT_MIB: Readonly<Record<string, number>> = {
  b: 1 / 2 ** 20,
  bytes: 1 / 2 ** 20,
  kib: 1 / 1024,
  kb: 1 / 1024,
  mib: 1,
  mb: 1,
  gib: 1024,
  gb: 1024,
};

/** A step's out-of-memory: what its failed allocation asked for, in MiB, when the stack said. */
export interface OutOfMemory {
  readonly askedMiB: number | null;
  /** The line that told it, for the step's log and its row. */
  readonly line: string;
}

/**
 * The out-of-memory a step's output reports, or null. `marker` (loop.yaml `oom_marker`) is a
 * stack's own line for it, besides PyTorch's, JAX's and CUDA's.
 */
export function outOfMemory(output: string, marker?: string): OutOfMemory | null {
  const lines = output.split('\n');
  const told = lines.find(
    (line) => FRAMEWORK_OOM.some((pattern) => pattern.test(line)) || (marker !== undefined && line.includes(marker)),
  );
  if (told === undefined) return null;
  return { askedMiB: askedMiB(output), line: told.trim().slice(0, 300) };
}

/** `Tried to allocate 45.00 GiB` (PyTorch) or `trying to allocate 48318382080 bytes` (XLA), in MiB. */
function askedMiB(output: string): number | null {
  const found = /(?:tried|trying) to allocate\s+([\d.]+)\s*([KMG]i?B|bytes|B)\b/i.exec(output);
  if (found === null) return null;
  const value = Number(found[1]);
  const unit = UNIT_MIB[(found[2] ?? '').toLowerCase()];
  if (!Number.isFinite(value) || unit === undefined) return null;
  return Math.ceil(value * unit);
}
