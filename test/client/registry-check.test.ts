import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { registryWarning } from '../../src/client/registry-check.js';
import { freePort } from '../../src/devserver/dev-server.js';
import type { MlflowSettings } from '../../src/registry/mlflow-settings.js';

// Issue 23: `start` of a loop whose MLflow does not answer said nothing; the registration gave up
// an hour later. Against real HTTP servers on localhost and a closed port.

const settings = (trackingUri: string): MlflowSettings => ({
  tracking_uri: trackingUri,
  model_name: 'gate',
  alias: 'champion',
  retry_for: '1h',
});

describe('start asks the MLflow tracking server whether it answers', () => {
  const servers: Server[] = [];
  const serve = async (answer: 'refuse' | 'hang'): Promise<string> => {
    const server = createServer((_, response) => {
      if (answer === 'refuse') response.writeHead(404).end('{"error_code":"ENDPOINT_NOT_FOUND"}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('no mlflow section, or a server that answers anything (even an error): no warning', async () => {
    expect(await registryWarning(undefined)).toBeNull();
    expect(await registryWarning(settings(await serve('refuse')))).toBeNull();
  });

  it('a closed port: one line naming the URL, the key, the cause and what happens to registrations', async () => {
    const uri = `http://127.0.0.1:${await freePort()}`;
    expect(await registryWarning(settings(uri))).toBe(
      `warning: MLflow at ${uri} (loop.yaml mlflow.tracking_uri) does not answer from this machine (ECONNREFUSED): ` +
        "each packaged champion's registration retries for 1h (mlflow.retry_for), then gives up. " +
        'Start the tracking server or correct the URL; packaging goes on either way',
    );
  });

  it('a server that never answers: the same, after the probe`s 3 s', async () => {
    expect(await registryWarning(settings(await serve('hang')))).toContain(
      'does not answer from this machine (no answer within 3 s)',
    );
  });
});
