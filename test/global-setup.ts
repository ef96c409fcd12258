import type { TestProject } from 'vitest/node';
import { ensureTemporalCli } from '../src/devserver/provision.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalCli: string;
  }
}

/** Provision the Temporal CLI once for every test file (each file starts its own servers). */
export default async function setup(project: TestProject): Promise<void> {
  const cli = await ensureTemporalCli((line) => console.error(`[provision] ${line}`));
  project.provide('temporalCli', cli.path);
}
