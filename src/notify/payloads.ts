import type { NotifyEvent } from './events.js';
import type { WebhookSettings } from './settings.js';

// What a webhook receives: the event as plain JSON, or a Slack-compatible `{"text": ...}`
// (Slack incoming webhooks, and the many chat tools that accept the same payload).

/** The request body for one event in a webhook's format. */
export function payloadOf(event: NotifyEvent, format: WebhookSettings['format']): string {
  return format === 'slack' ? JSON.stringify(slackPayload(event)) : JSON.stringify(event);
}

/** Slack's text payload; the event id rides along for receivers that de-duplicate. */
function slackPayload(event: NotifyEvent): { text: string; event_id: string } {
  return { text: `${SLACK_MARKS[event.type]} ${slackEscape(event.text)}`, event_id: event.id };
}

const SLACK_MARKS: Readonly<Record<NotifyEvent['type'], string>> = {
  new_champion: ':trophy:',
  reserve_verdict: ':scales:',
  generation_turnover: ':arrows_counterclockwise:',
  package_outcome: ':package:',
  runs_failing: ':rotating_light:',
  split_failed: ':no_entry:',
};

/** Slack reads `&`, `<` and `>` as markup: these three are escaped, nothing else. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
