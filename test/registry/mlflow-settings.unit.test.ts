import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { parseLoopConfig } from '../../src/config/loop-config.js';
import { authorization } from '../../src/registry/mlflow-rest.js';
import { sourceUri } from '../../src/registry/register-champion.js';
import { thrown } from '../helpers/files-and-errors.js';

const MINIMAL = ['data_root: data', 'candidates: candidates.yaml', 'lanes:', '  - {host: gpu-a, device: 0}', ''].join(
  '\n',
);

const withMlflow = (...lines: string[]) => `${MINIMAL}mlflow:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
const problem = (text: string) => thrown(ConfigError, () => parseLoopConfig(text, 'loop.yaml')).message;

describe('loop.yaml mlflow', () => {
  it('is off unless written, and fills alias champion and retry_for 1h', () => {
    expect(parseLoopConfig(MINIMAL, 'loop.yaml').mlflow).toBeUndefined();
    expect(
      parseLoopConfig(withMlflow('tracking_uri: http://mlflow:5000', 'model_name: gate'), 'loop.yaml').mlflow,
    ).toEqual({ tracking_uri: 'http://mlflow:5000', model_name: 'gate', alias: 'champion', retry_for: '1h' });
  });

  it('refuses credentials in loop.yaml and asks for environment variable names', () => {
    expect(problem(withMlflow('tracking_uri: https://me:secret@mlflow', 'model_name: gate'))).toContain(
      'name the environment variables that hold them',
    );
    expect(
      problem(withMlflow('tracking_uri: http://mlflow', 'model_name: gate', 'token_env: "dapi-123/abc"')),
    ).toContain('the name of an environment variable');
    expect(
      problem(withMlflow('tracking_uri: http://mlflow', 'model_name: gate', 'username_env: MLFLOW_USER')),
    ).toContain('username_env and password_env go together');
  });

  it('refuses a tracking URI that is not http(s) and an alias MLflow reserves', () => {
    expect(problem(withMlflow('tracking_uri: databricks', 'model_name: gate'))).toContain('an http(s) URL');
    expect(problem(withMlflow('tracking_uri: http://mlflow', 'model_name: gate', 'alias: v3'))).toContain(
      "not 'latest'",
    );
  });
});

describe('MLflow credentials and sources', () => {
  const settings = { tracking_uri: 'http://mlflow', model_name: 'gate', alias: 'champion', retry_for: '1h' as const };

  it('reads the token or the user and password from the environment variables named', () => {
    expect(authorization(settings, {})).toBeUndefined();
    expect(authorization({ ...settings, token_env: 'TOKEN' }, { TOKEN: 't0k' })).toBe('Bearer t0k');
    expect(authorization({ ...settings, username_env: 'U', password_env: 'P' }, { U: 'me', P: 'pw' })).toBe(
      `Basic ${Buffer.from('me:pw').toString('base64')}`,
    );
    expect(() => authorization({ ...settings, token_env: 'TOKEN' }, {})).toThrow(
      /TOKEN .* is not set on the package worker/,
    );
  });

  it('names the package by its host and absolute path, encoded as a URI', () => {
    expect(sourceUri('/srv/state/packages/g001 a', 'gpu-a')).toBe('champion-loop://gpu-a/srv/state/packages/g001%20a');
  });
});
