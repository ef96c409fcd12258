import { describe, expect, it } from 'vitest';
import { registryLine } from '../../src/client/registry-words.js';

const champion = { generation: 2, run_id: 'champ-g002-r0003-wide', checkpoint_name: 'checkpoint-0004.pt' };

describe("status's line on MLflow registrations", () => {
  it('says nothing for a loop without a registry or with nothing registered yet', () => {
    expect(registryLine(undefined)).toBeNull();
    expect(registryLine({ pending: 0, last: null })).toBeNull();
  });

  it('names the version the alias points to, and what still waits', () => {
    const last = { ...champion, status: 'registered' as const, model: 'gate', version: '7', alias: 'champion' };
    expect(registryLine({ pending: 0, last })).toBe(
      "model registry: gate version 7 is 'champion': champ-g002-r0003-wide checkpoint-0004.pt (generation 2)",
    );
    expect(registryLine({ pending: 2, last })).toMatch(/; 2 waiting or retrying$/);
  });

  it('says why the last registration gave up and what to do', () => {
    const line = registryLine({ pending: 1, last: { ...champion, status: 'failed', error: 'connect ECONNREFUSED' } });
    expect(line).toBe(
      'model registry: gave up registering champ-g002-r0003-wide checkpoint-0004.pt (generation 2): connect ECONNREFUSED. ' +
        'Its package is kept: register it by hand; still trying to register 1 later champion',
    );
  });

  it('a registry that was down: the line says it gave up, never "gave up ... retrying" (issue 48)', () => {
    // The last attempt's error as histories before the fix hold it, ending "; retrying".
    const error =
      'Activity task timed out: MLflow at http://127.0.0.1:5999 did not answer POST registered-models/create (ECONNREFUSED); retrying';
    const line = registryLine({ pending: 0, last: { ...champion, status: 'failed', error } }) ?? '';
    expect(line).not.toMatch(/retrying/);
    expect(line).toBe(
      'model registry: gave up registering champ-g002-r0003-wide checkpoint-0004.pt (generation 2): Activity task timed out: ' +
        'MLflow at http://127.0.0.1:5999 did not answer POST registered-models/create (ECONNREFUSED). Its package is kept: register it by hand',
    );
    expect(registryLine({ pending: 2, last: { ...champion, status: 'failed', error } })).toMatch(
      /register it by hand; still trying to register 2 later champions$/,
    );
  });

  it('says when registrations wait before the first one is done', () => {
    expect(registryLine({ pending: 1, last: null })).toBe('model registry: 1 waiting or retrying, none registered yet');
  });
});
