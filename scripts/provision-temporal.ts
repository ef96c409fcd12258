// Finds or installs the Temporal CLI and prints where it is (used by `npm test`, `npm run demo`, CI).
import { ensureTemporalCli, ProvisionError } from '../src/devserver/provision.js';

try {
  const cli = await ensureTemporalCli((line) => console.error(`[provision] ${line}`));
  console.log(`Temporal CLI ${cli.version} (${cli.route}): ${cli.path}`);
} catch (error) {
  console.error(error instanceof ProvisionError ? error.message : error);
  process.exit(1);
}
