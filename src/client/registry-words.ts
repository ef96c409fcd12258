import type { RegistryView } from '../workflows/registrations.js';

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
  // A later champion still being tried is said apart from the one given up on; an attempt's error as
  // histories from before issue 48 hold it ends "; retrying", which the given-up line must not repeat.
  const error = last.error.replace(/;\s*retrying\s*$/, '');
  const later = registry.pending === 1 ? '1 later champion' : `${registry.pending} later champions`;
  return (
    `model registry: gave up registering ${champion}: ${error}. Its package is kept: register it by hand` +
    (registry.pending > 0 ? `; still trying to register ${later}` : '')
  );
}
