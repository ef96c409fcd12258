import { z } from 'zod';
import { DURATION_EXPECTED, isDuration, type DurationText } from '../config/duration.js';
import { httpUrlWithoutCredentials, nonEmptyString } from '../config/fields.js';

// loop.yaml `mlflow:`: where each packaged champion is registered (docs/integrations.md, "Model registry (MLflow)").
// Credentials are named by environment variable only: this section travels in workflow inputs,
// so a secret written here would sit in every history.

/** The alias moved to each newly registered champion when loop.yaml names none. */
const DEFAULT_ALIAS = 'champion';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_EXPECTED = 'the name of an environment variable (letters, digits, _), not its value';

function envName() {
  return z.string({ error: ENV_EXPECTED }).regex(ENV_NAME, { error: ENV_EXPECTED }).optional();
}

const TRACKING_URI_EXPECTED = 'an http(s) URL of an MLflow tracking server, e.g. http://mlflow.internal:5000';

const trackingUri = httpUrlWithoutCredentials(
  TRACKING_URI_EXPECTED,
  'name the environment variables that hold them (token_env, or username_env and password_env)',
);

// MLflow refuses 'latest' and 'v<N>' as aliases (they name versions), and allows letters, digits, '_' and '-'.
const ALIAS_EXPECTED = "an alias: letters, digits, '_', '-' (not 'latest' or 'v1', 'v2', …)";
const alias = z
  .string({ error: ALIAS_EXPECTED })
  .regex(/^[A-Za-z0-9_-]+$/, { error: ALIAS_EXPECTED })
  .refine((text) => !/^(latest|v\d+)$/i.test(text), { error: ALIAS_EXPECTED })
  .default(DEFAULT_ALIAS);

export const mlflowSchema = z
  .strictObject(
    {
      tracking_uri: trackingUri,
      model_name: nonEmptyString('a registered model name'),
      alias,
      token_env: envName(),
      username_env: envName(),
      password_env: envName(),
      retry_for: z.custom<DurationText>(isDuration, { error: DURATION_EXPECTED }).default('1h'),
    },
    {
      error: (issue) =>
        issue.code === 'invalid_type'
          ? 'a mapping: {tracking_uri, model_name, alias?, token_env?, username_env?, password_env?, retry_for?}'
          : undefined,
    },
  )
  .superRefine((settings, context) => {
    if ((settings.username_env === undefined) !== (settings.password_env === undefined)) {
      context.addIssue({
        code: 'custom',
        path: [settings.username_env === undefined ? 'username_env' : 'password_env'],
        input: settings,
        message: 'username_env and password_env go together (basic auth), or use token_env alone',
      });
    }
    if (settings.token_env !== undefined && settings.username_env !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['token_env'],
        input: settings,
        message: 'either token_env (a bearer token) or username_env and password_env (basic auth), not both',
      });
    }
  });

/** loop.yaml `mlflow:` with defaults applied. */
export type MlflowSettings = z.output<typeof mlflowSchema>;
