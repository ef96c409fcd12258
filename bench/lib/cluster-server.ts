// A self-hosted cluster as a bench server (scripts/cluster/): the Temporal server built from the Go
// module proxy on PostgreSQL, 4 history shards, the namespace made as an operator makes it.
import { startCluster } from '../../scripts/cluster/cluster.js';
import { ensureClusterTools } from '../../scripts/cluster/provision.js';
import { historyWarningsIn, type BenchServer } from './server.js';

export async function startBenchCluster(
  cli: string,
  log: (line: string) => void,
  dynamicConfig: Record<string, unknown> = {},
): Promise<BenchServer> {
  const tools = await ensureClusterTools(log);
  const cluster = await startCluster(tools, { cli, dynamicConfig });
  return {
    ...cluster,
    historyWarnings: () => historyWarningsIn(cluster.logFile),
    // Its folder holds PostgreSQL's data: --keep does not keep a cluster.
    dispose: () => cluster.dispose(),
  };
}
