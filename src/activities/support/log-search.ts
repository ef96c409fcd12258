import { createReadStream } from 'node:fs';

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
