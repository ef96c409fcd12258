import { z } from 'zod';
import { DURATION_EXPECTED, isDuration, type DurationText } from '../config/duration.js';
import { intAtLeast, nonEmptyString } from '../config/fields.js';

// loop.yaml `notify:`: webhooks told when something happens in the loop (docs/integrations.md, "Notifications").
// A webhook's URL often holds its token (Slack's do), and this section travels in workflow inputs,
// so loop.yaml names only the environment variable the orchestrator worker reads it from.

/** What a webhook can be told about, one kind of ledger row (or run of rows) each. */
export const NOTIFY_EVENTS = [
  'new_champion',
  'reserve_verdict',
  'generation_turnover',
  'package_outcome',
  'runs_failing',
  'split_failed',
] as const;

export type NotifyEventType = (typeof NOTIFY_EVENTS)[number];

/** Payload formats: the event as plain JSON, or Slack's `{"text": ...}`. */
const NOTIFY_FORMATS = ['json', 'slack'] as const;

/** `runs_failing` fires when this many training runs in a row failed, unless loop.yaml says otherwise. */
const DEFAULT_RUNS_FAILING = 3;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_EXPECTED = 'the name of an environment variable holding the URL (letters, digits, _), not the URL itself';
const EVENTS_EXPECTED = `a non-empty list of events out of ${NOTIFY_EVENTS.join(', ')}`;

const webhookSchema = z.strictObject(
  {
    /** How logs and notify.json name it; defaults to url_env. */
    name: nonEmptyString('a name for this webhook').optional(),
    url_env: z.string({ error: ENV_EXPECTED }).regex(ENV_NAME, { error: ENV_EXPECTED }),
    format: z.enum(NOTIFY_FORMATS, { error: `one of ${NOTIFY_FORMATS.join(', ')}` }).default('json'),
    events: z
      .array(z.enum(NOTIFY_EVENTS, { error: `one of ${NOTIFY_EVENTS.join(', ')}` }), { error: EVENTS_EXPECTED })
      .min(1, { error: EVENTS_EXPECTED })
      .default(() => [...NOTIFY_EVENTS]),
    /** One request may take this long; then it counts as failed and is retried. */
    timeout: z.custom<DurationText>(isDuration, { error: DURATION_EXPECTED }).default('10s'),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type' ? 'a webhook: {url_env, format?, events?, name?, timeout?}' : undefined,
  },
);

const WEBHOOKS_EXPECTED = 'a non-empty list of webhooks, e.g. [{url_env: SLACK_WEBHOOK_URL, format: slack}]';

export const notifySchema = z.strictObject(
  {
    webhooks: z
      .array(webhookSchema, { error: WEBHOOKS_EXPECTED })
      .min(1, { error: WEBHOOKS_EXPECTED })
      .superRefine((webhooks, context) => {
        const seen = new Map<string, number>();
        webhooks.forEach((webhook, index) => {
          const name = webhook.name ?? webhook.url_env;
          const earlier = seen.get(name);
          if (earlier === undefined) seen.set(name, index);
          else
            context.addIssue({
              code: 'custom',
              path: [index],
              input: webhook,
              message: `a webhook named apart from webhooks.${earlier} (both are ${JSON.stringify(name)}): give one a name`,
            });
        });
      }),
    runs_failing: intAtLeast(1, 'a number of training runs failing in a row (an integer >= 1)').default(
      DEFAULT_RUNS_FAILING,
    ),
  },
  {
    error: (issue) => (issue.code === 'invalid_type' ? 'a mapping: {webhooks, runs_failing?}' : undefined),
  },
);

/** loop.yaml `notify:` with defaults applied. */
export type NotifySettings = z.output<typeof notifySchema>;

export type WebhookSettings = NotifySettings['webhooks'][number];

/** The name logs and notify.json give a webhook. */
export function webhookName(webhook: WebhookSettings): string {
  return webhook.name ?? webhook.url_env;
}
