import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

/** The error a call throws, checked to be of the class expected; fails the test otherwise. */
export function thrown<E extends Error>(ErrorClass: new (...args: never[]) => E, call: () => unknown): E {
  try {
    call();
  } catch (error) {
    if (error instanceof ErrorClass) {
      return error;
    }
    throw error;
  }
  throw new Error(`expected a ${ErrorClass.name}, but nothing was thrown`);
}

/** The error a promise rejects with, checked to be of the class expected. */
export async function rejection<E extends Error>(
  ErrorClass: new (...args: never[]) => E,
  promise: Promise<unknown>,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ErrorClass) {
      return error;
    }
    throw error;
  }
  throw new Error(`expected a ${ErrorClass.name}, but the promise resolved`);
}

/** Absolute path of a copied subprocess-contract example under test/fixtures/contract. */
export function contractFixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/contract/${name}`, import.meta.url));
}

/** A fresh temporary directory, removed when the current test finishes. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-test-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes files (relative path -> text) under a directory, creating folders as needed. */
export async function writeFiles(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [relative, text] of Object.entries(files)) {
    const file = path.join(dir, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  }
}

/**
 * A line of a Node stack trace (`at fn (file:line:col)` or `at file:line:col`): what a command's
 * output must not hold when it fails with one clear error. Help text that wraps onto a line
 * starting with the word "at" is not one.
 */
export const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;
