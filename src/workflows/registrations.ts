// Workflow code (deterministic, no Node built-ins): the packaging workflow's registrations of its
// packaged champions, one at a time in packaging order, so the alias ends on the newest one even
// when an older registration had to wait for the registry to come back.
import { log, proxyActivities } from '@temporalio/workflow';
import { withSummaries } from './activity-summary.js';
import { failureText } from './lane-failure.js';
import { stepOptions } from './step-options.js';
import type { registryActivities } from '../registry/index.js';
import type { MlflowSettings } from '../registry/mlflow-settings.js';
import type { RegisterChampionInput } from '../registry/register-champion.js';

/** How the last registration ended, for the `packaging` query. */
type RegistrationOutcome = {
  readonly generation: number;
  readonly run_id: string;
  readonly checkpoint_name: string;
} & (
  | { readonly status: 'registered'; readonly model: string; readonly version: string; readonly alias: string }
  | { readonly status: 'failed'; readonly error: string }
);

/** The registry's side of the `packaging` query: registrations waiting or retrying, and the last outcome. */
export interface RegistryView {
  readonly pending: number;
  readonly last: RegistrationOutcome | null;
}

export interface Registrations {
  /** Queue one packaged champion's registration behind the ones before it. */
  add(input: Omit<RegisterChampionInput, 'settings'>): void;
  /** Nothing queued or retrying: the workflow may continue as new without losing one. */
  idle(): boolean;
  view(): RegistryView;
}

/** Why a registration gave up: the activity's failure and, after retry_for ran out, the last attempt's error under it. */
function failureChain(error: unknown): string {
  const messages: string[] = [];
  for (let cause: unknown = error; cause instanceof Error && messages.length < 4; cause = cause.cause)
    if (cause.message && !messages.includes(cause.message)) messages.push(cause.message);
  return messages.length > 0 ? messages.join(': ') : failureText(error);
}

export function registrations(settings: MlflowSettings): Registrations {
  // Each call carries a one-line summary for the Web UI's history (activity-summary.ts).
  const { registerChampion } = withSummaries(
    proxyActivities<typeof registryActivities>({
      ...stepOptions('registerChampion'),
      // A registry that is down is retried until retry_for has passed since the package finished.
      scheduleToCloseTimeout: settings.retry_for,
    }),
  );
  let chain: Promise<void> = Promise.resolve();
  let pending = 0;
  let last: RegistrationOutcome | null = null;

  const registerOne = async (input: RegisterChampionInput): Promise<void> => {
    const { generation, run_id, checkpoint_name } = input.champion;
    const champion = { generation, run_id, checkpoint_name };
    try {
      const registered = await registerChampion(input);
      last = {
        ...champion,
        status: 'registered',
        model: registered.model,
        version: registered.version,
        alias: registered.alias,
      };
    } catch (error) {
      // The package stands (its rows say so); only the registry misses this champion.
      const why = failureChain(error);
      last = { ...champion, status: 'failed', error: why };
      log.warn(
        `champion not registered in MLflow (retried for ${settings.retry_for}, loop.yaml mlflow.retry_for); its package is kept; check the registry and loop.yaml mlflow, the next champion registers as usual`,
        {
          runId: run_id,
          checkpoint: checkpoint_name,
          error: why,
        },
      );
    } finally {
      pending -= 1;
    }
  };

  return {
    add(input) {
      pending += 1;
      chain = chain.then(() => registerOne({ ...input, settings }));
    },
    idle: () => pending === 0,
    view: () => ({ pending, last }),
  };
}
