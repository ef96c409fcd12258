import type { TestProject } from 'vitest/node';
import { ensureTemporalCli } from '../../src/devserver/provision.js';
import { ensureClusterTools, type ClusterTools } from '../../scripts/cluster/provision.js';
import { buildBundleFile } from '../helpers/bundle-file.js';

declare module 'vitest' {
  export interface ProvidedContext {
    clusterTools: ClusterTools;
  }
}

/** The Temporal CLI (namespace commands), the server built from the Go module proxy, PostgreSQL. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (line: string) => console.error(`[provision] ${line}`);
  const bundled = buildBundleFile();
  const cli = await ensureTemporalCli(log);
  project.provide('temporalCli', cli.path);
  project.provide('clusterTools', await ensureClusterTools(log));
  const bundle = await bundled;
  project.provide('workflowBundleFile', bundle.file);
  return bundle.dispose;
}
