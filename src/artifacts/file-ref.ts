// A file a ledger row names for the hosts that read it after the one that wrote it (loop.yaml
// `artifacts:`, docs/artifacts.md): where it was written, the same path on every host, and its
// content, by which the store holds it (artifacts/file-store.ts). A pure type: rows and workflows carry it.

export interface FileRef {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
}

/**
 * Of a run's files, what another host needs to use some of its checkpoints: the run's inputs
 * (every file outside its run directory: job config, split, teacher file) and `kept` of the files inside it.
 */
export function runFilesFor(files: readonly FileRef[], runDir: string, kept: readonly string[]): FileRef[] {
  return files.filter((ref) => kept.includes(ref.path) || !ref.path.startsWith(`${runDir}/`));
}
