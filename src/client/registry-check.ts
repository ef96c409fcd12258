import type { MlflowSettings } from '../registry/mlflow-settings.js';

// `start` of a loop that registers its champions in MLflow (loop.yaml `mlflow:`) asks the tracking
// server whether it answers at all: a registry on a closed port otherwise shows only later, as
// a registration that "gave up" in `status`. It only warns: the package worker, on another
// machine, may reach what this one does not, and registrations retry for `retry_for` anyway.

/** How long `start` waits for the tracking server. */
const PROBE_TIMEOUT_MS = 3_000;

/** One warning line when the tracking server does not answer from here; null when it answers (whatever it says). */
export async function registryWarning(settings: MlflowSettings | undefined): Promise<string | null> {
  if (settings === undefined) return null;
  const base = settings.tracking_uri.replace(/\/+$/, '');
  try {
    await fetch(`${base}/api/2.0/mlflow/registered-models/search?max_results=1`, {
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    return null;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    return (
      `warning: MLflow at ${settings.tracking_uri} (loop.yaml mlflow.tracking_uri) does not answer from this machine (${why}): ` +
      `each packaged champion's registration retries for ${settings.retry_for} (mlflow.retry_for), then gives up. ` +
      'Start the tracking server or correct the URL; packaging goes on either way'
    );
  }
}
