import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** Whether a log holds `text` after byte `start`; read in chunks, so a huge log is never loaded whole. */
export async function logContains(path: string, start: number, text: string): Promise<boolean> {
  let tail = '';
  try {
    for await (const chunk of createReadStream(path, { start, encoding: 'utf8' })) {
      const window = tail + (chunk as string);
      if (window.includes(text)) {
        return true;
      }
      tail = window.slice(-Math.max(text.length - 1, 0));
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return false;
    }
    throw error;
  }
  return false;
}

/** The end of a log after byte `start`, at most `most` bytes of it (a stack's last words): '' when there is no log. */
export async function logSince(path: string, start: number, most = 64 * 1024): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const from = Math.max(start, size - most);
    const buffer = Buffer.alloc(Math.max(0, size - from));
    await handle.read(buffer, 0, buffer.length, from);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}
