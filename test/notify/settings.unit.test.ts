import { describe, expect, it } from 'vitest';
import { parseLoopConfig } from '../../src/config/loop-config.js';
import { ConfigError } from '../../src/config/errors.js';
import { NOTIFY_EVENTS } from '../../src/notify/settings.js';

const BASE = 'data_root: data\ncandidates: candidates.yaml\nlanes: [{host: a, device: 0}]\n';

const parse = (notify: string) => parseLoopConfig(`${BASE}notify:\n${notify}`, 'loop.yaml');

function problem(notify: string): string {
  try {
    parse(notify);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loop.yaml notify:', () => {
  it('is optional; a webhook gets json, every event and a 10s timeout unless it says otherwise; runs_failing defaults to 3', () => {
    expect(parseLoopConfig(BASE, 'loop.yaml').notify).toBeUndefined();
    expect(parse('  webhooks: [{url_env: HOOK}]\n').notify).toEqual({
      webhooks: [{ url_env: 'HOOK', format: 'json', events: [...NOTIFY_EVENTS], timeout: '10s' }],
      runs_failing: 3,
    });
    const slack = parse(
      '  runs_failing: 5\n  webhooks:\n    - {name: team, url_env: SLACK_WEBHOOK_URL, format: slack, events: [new_champion, runs_failing], timeout: 3s}\n',
    ).notify;
    expect(slack?.runs_failing).toBe(5);
    expect(slack?.webhooks[0]).toMatchObject({
      name: 'team',
      format: 'slack',
      events: ['new_champion', 'runs_failing'],
    });
  });

  it('takes the name of an environment variable, never a URL', () => {
    expect(problem('  webhooks: [{url_env: "https://hooks.slack.com/services/T/B/X"}]\n')).toContain(
      'the name of an environment variable holding the URL',
    );
    expect(problem('  webhooks: [{url: "https://example.com/hook"}]\n')).toMatch(/url/);
  });

  it('names the events and formats it knows, and wants webhooks told apart', () => {
    expect(problem('  webhooks: [{url_env: HOOK, events: [champion]}]\n')).toContain(
      'one of new_champion, reserve_verdict',
    );
    expect(problem('  webhooks: [{url_env: HOOK, format: teams}]\n')).toContain('one of json, slack');
    expect(problem('  webhooks: []\n')).toContain('a non-empty list of webhooks');
    expect(problem('  webhooks: [{url_env: HOOK}, {url_env: HOOK, format: slack}]\n')).toContain('give one a name');
    expect(problem('  webhooks: [{url_env: HOOK}]\n  runs_failing: 0\n')).toContain('an integer >= 1');
  });
});
