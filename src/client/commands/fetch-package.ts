// champion-loop fetch-package: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import { ObjectStore } from '../../artifacts/object-store.js';
import { fetchPackage } from '../../artifacts/package-store.js';
import path from 'node:path';
import { loadLoopConfig } from '../../config/load-loop-config.js';

/** `champion-loop fetch-package`. */
export function addFetchPackageCommand(program: Command): void {
  program
    .command('fetch-package')
    .description(
      "fetch a packaged champion from the loop's artifact store (loop.yaml artifacts:) into a folder, every file checked by sha256: the URI is the package row's package_uri, or the MLflow version's source",
    )
    .argument('<uri>', 's3://bucket/prefix/packages/LOOP/gNNN/RUN/CHECKPOINT')
    .requiredOption('-c, --config <loop.yaml>', 'the loop settings: its artifacts: section says where the store is')
    .requiredOption('-o, --out <dir>', 'the folder to fetch into (made if missing)')
    .action(async (uri: string, options: { config: string; out: string }) => {
      const config = await loadLoopConfig(options.config);
      if (config.artifacts === undefined)
        throw new Error(`${options.config} has no artifacts: section: the loop keeps no packages in a store`);
      const store = new ObjectStore(config.artifacts);
      try {
        const fetched = await fetchPackage(store, uri, path.resolve(options.out));
        console.log(`${uri}: ${fetched.files} files, ${fetched.bytes} bytes, each checked by sha256 -> ${options.out}`);
      } finally {
        store.close();
      }
    });
}
