import { describe, expect, it } from 'vitest';
import type { NotifyEvent } from '../../src/notify/events.js';
import { payloadOf } from '../../src/notify/payloads.js';
import { redact } from '../../src/notify/post.js';

const event: NotifyEvent = {
  id: 'spam/12/new_champion',
  type: 'new_champion',
  loop: 'spam',
  row_index: 12,
  generation: 1,
  time: '2026-01-05T08:15:30.000Z',
  text: 'Loop spam: new champion in generation 1: wide <b> & co',
  details: { champion: { candidate: 'wide' } },
};

describe('webhook payloads', () => {
  it('json: the event itself, every field', () => {
    expect(JSON.parse(payloadOf(event, 'json'))).toEqual(event);
  });

  it("slack: {text} with the kind's emoji, Slack's three markup characters escaped, and the event id", () => {
    expect(JSON.parse(payloadOf(event, 'slack'))).toEqual({
      text: ':trophy: Loop spam: new champion in generation 1: wide &lt;b&gt; &amp; co',
      event_id: 'spam/12/new_champion',
    });
    const failing = { ...event, type: 'runs_failing' as const, text: 'Loop spam: 3 training runs in a row failed' };
    expect((JSON.parse(payloadOf(failing, 'slack')) as { text: string }).text).toMatch(
      /^:rotating_light: Loop spam: 3/,
    );
  });
});

describe('redacting a webhook URL', () => {
  const url = 'https://hooks.slack.com/services/T000/B000/XXXXSECRET?token=abc123';

  it('hides the whole URL, its path and its query behind the variable name', () => {
    const text = `Failed to parse URL from ${url}; path /services/T000/B000/XXXXSECRET; query ?token=abc123`;
    const hidden = redact(text, url, 'SLACK_WEBHOOK_URL');
    expect(hidden).not.toContain('XXXXSECRET');
    expect(hidden).not.toContain('abc123');
    expect(hidden).toBe(
      'Failed to parse URL from $SLACK_WEBHOOK_URL; path $SLACK_WEBHOOK_URL; query $SLACK_WEBHOOK_URL',
    );
  });

  it('leaves a message without the URL alone', () => {
    expect(redact('connect ECONNREFUSED 127.0.0.1:9', url, 'HOOK')).toBe('connect ECONNREFUSED 127.0.0.1:9');
  });
});
