import { mkdir } from 'node:fs/promises';
import { execa } from 'execa';

// A real small file system for the tests that need a full disk (ENOSPC) or a read-only one
// (EROFS): a tmpfs mounted at a folder. Mounting needs root (or CAP_SYS_ADMIN), which this
// project's test hosts and CI have (their sessions make network namespaces too); where it is
// missing, `mountTmpfs` fails the test with the reason, never fakes the file system.

export interface Tmpfs {
  readonly dir: string;
  /** Make it read-only or writable again (`mount -o remount`). */
  remount(options: { readOnly: boolean }): Promise<void>;
  unmount(): Promise<void>;
}

/** Mount a tmpfs of `sizeKiB` at `dir`; throws, saying why, when this machine does not let the test. */
export async function mountTmpfs(
  dir: string,
  { sizeKiB, readOnly = false }: { sizeKiB: number; readOnly?: boolean },
): Promise<Tmpfs> {
  await mkdir(dir, { recursive: true });
  const options = `size=${sizeKiB}k${readOnly ? ',ro' : ''}`;
  const mounted = await execa('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { reject: false });
  if (mounted.exitCode !== 0)
    throw new Error(
      `mount -t tmpfs failed (${mounted.stderr.trim()}): this test needs a real small file system, so root or CAP_SYS_ADMIN`,
    );
  return {
    dir,
    async remount({ readOnly: ro }) {
      await execa('mount', ['-o', `remount,${ro ? 'ro' : 'rw'}`, dir]);
    },
    async unmount() {
      await execa('umount', [dir], { reject: false });
    },
  };
}
