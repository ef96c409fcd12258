import type { RegistryView } from '../registry/registrations.js';

/**
 * What `status` says of a loop's MLflow registrations (the packaging workflow's `registry` view):
 * the model version the alias points to, or why the last registration gave up, and how many wait.
 * Null when the loop registers nothing (no `mlflow:` section) or has not yet registered anything.
 */
export function registryLine(registry: RegistryView | undefined): string | null {
  if (!registry || (registry.last === null && registry.pending === 0)) return null;
  const waiting = registry.pending > 0 ? `; ${registry.pending} waiting or retrying` : '';
  const { last } = registry;
  if (last === null) return `model registry: ${registry.pending} waiting or retrying, none registered yet`;
  const champion = `${last.run_id} ${last.checkpoint_name} (generation ${last.generation})`;
  if (last.status === 'registered')
    return `model registry: ${last.model} version ${last.version} is '${last.alias}': ${champion}${waiting}`;
  return `model registry: registering ${champion} gave up: ${last.error}; register that package by hand${waiting}`;
}
