import { ApplicationFailure } from '@temporalio/common';
import type { MlflowSettings } from './mlflow-settings.js';
import { definedFields } from '../support/defined-fields.js';

// MLflow's REST API (https://mlflow.org/docs/latest/rest-api.html) over Node's fetch: the few
// model-registry calls the loop makes. No MLflow client exists for Node worth a dependency.

/** One request may take this long before it counts as a transient failure (the activity retries). */
const REQUEST_TIMEOUT_MS = 15_000;

/** MLflow's error body: `{"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "..."}`. */
export class MlflowError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
    this.name = 'MlflowError';
  }
}

/** The non-retryable failure type of a request MLflow refused for good (bad name, bad source). */
const MLFLOW_REFUSED = 'MlflowRefused';

/** Whether retrying later may succeed: the server down, slow, overloaded, or refusing credentials that a worker restart may fix. */
function transient(status: number): boolean {
  return status >= 500 || status === 408 || status === 429 || status === 401 || status === 403;
}

/** The Authorization header from the environment variables the settings name; throws (retryably) when one is unset. */
export function authorization(settings: MlflowSettings, env: NodeJS.ProcessEnv): string | undefined {
  const read = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === '')
      throw new Error(
        `environment variable ${name} (loop.yaml mlflow) is not set on the package worker: set it and restart the worker`,
      );
    return value;
  };
  if (settings.token_env !== undefined) return `Bearer ${read(settings.token_env)}`;
  if (settings.username_env !== undefined && settings.password_env !== undefined) {
    const pair = `${read(settings.username_env)}:${read(settings.password_env)}`;
    return `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  return undefined;
}

export interface MlflowClient {
  get(path: string, query: Record<string, string>): Promise<unknown>;
  post(path: string, body: unknown): Promise<unknown>;
}

/** A client of one tracking server; every call throws MlflowError for an error answer. */
export function mlflowClient(settings: MlflowSettings, env: NodeJS.ProcessEnv = process.env): MlflowClient {
  const base = settings.tracking_uri.replace(/\/+$/, '');
  const auth = authorization(settings, env);
  const call = async (method: 'GET' | 'POST', path: string, url: string, body?: unknown): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...definedFields({ Authorization: auth }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      // Refused, reset, unresolvable, timed out: the registry is down or unreachable, which may pass.
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      // The activity's retry policy decides whether it is tried again; the error says only what happened.
      throw new Error(`MLflow at ${base} did not answer ${method} ${path} (${cause})`);
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (response.ok && parsed !== null) return parsed;
    const { error_code: code, message } = (parsed ?? {}) as { error_code?: string; message?: string };
    const error = new MlflowError(
      response.status,
      code ?? `HTTP_${response.status}`,
      `MLflow at ${base} answered ${method} ${path} with ${response.status} ${code ?? ''}: ${message ?? text.slice(0, 300)}`,
    );
    return Promise.reject(error);
  };
  return {
    get: (path, query) => call('GET', path, `${base}/api/2.0/mlflow/${path}?${new URLSearchParams(query).toString()}`),
    post: (path, body) => call('POST', path, `${base}/api/2.0/mlflow/${path}`, body),
  };
}

/**
 * What the activity throws for an MLflow error: transient ones as they are (Temporal retries
 * them), the rest as a non-retryable failure that says what to change.
 */
export function asActivityFailure(error: unknown): unknown {
  if (!(error instanceof MlflowError) || transient(error.status)) return error;
  return ApplicationFailure.nonRetryable(
    `${error.message} — check loop.yaml mlflow (model_name, alias) and the package path; the package itself is kept`,
    MLFLOW_REFUSED,
  );
}
