import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectClient, NoServerError } from '../../src/client/connect.js';
import {
  connectionSettings,
  ConnectionSettingsError,
  DEFAULT_NAMESPACE,
  describeConnection,
} from '../../src/workers/connection.js';
import { rejection, tempDir } from '../helpers/files-and-errors.js';
import { startFakeFrontend, tlsFixture, type FakeFrontend } from './fake-frontend.js';

const API_KEY = 'sk-test-0123456789-SECRET';

/** Certificate and key bytes (envconfig reads them as Uint8Array) as text. */
const text = (bytes: Uint8Array | undefined): string | undefined =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;
const fixtureText = (name: string): string => readFileSync(tlsFixture(name), 'utf8');

/** An envconfig TOML file (what `temporal config set` writes) with a cluster profile using mTLS and an API key. */
async function profileFile(address: string, extra = ''): Promise<string> {
  const file = path.join(await tempDir(), 'temporal.toml');
  await writeFile(
    file,
    [
      '[profile.default]',
      'address = "default.example:7233"',
      '',
      '[profile.cluster]',
      `address = "${address}"`,
      'namespace = "gates.a1b2c"',
      `api_key = "${API_KEY}"`,
      '[profile.cluster.tls]',
      `client_cert_path = "${tlsFixture('client.crt')}"`,
      `client_key_path = "${tlsFixture('client.key')}"`,
      `server_ca_cert_path = "${tlsFixture('ca.crt')}"`,
      'server_name = "localhost"',
      extra,
    ].join('\n'),
  );
  return file;
}

describe('connection settings, read as every Temporal tool reads them', () => {
  it('take address, namespace, API key and mTLS files from an envconfig profile', async () => {
    const settings = connectionSettings(
      { profile: 'cluster' },
      { TEMPORAL_CONFIG_FILE: await profileFile('cluster.example:7233') },
    );
    expect(settings.namespace).toBe('gates.a1b2c');
    const { address, apiKey, tls } = settings.connectionOptions;
    expect(address).toBe('cluster.example:7233');
    expect(apiKey).toBe(API_KEY);
    if (typeof tls !== 'object' || !tls) throw new Error(`expected TLS settings, got ${String(tls)}`);
    expect(tls.serverNameOverride).toBe('localhost');
    expect(text(tls.serverRootCACertificate)).toBe(fixtureText('ca.crt'));
    expect(text(tls.clientCertPair?.crt)).toBe(fixtureText('client.crt'));
    expect(text(tls.clientCertPair?.key)).toBe(fixtureText('client.key'));
  });

  it('pick the profile from TEMPORAL_PROFILE, let TEMPORAL_* variables override it, and flags override both', async () => {
    const env = {
      TEMPORAL_CONFIG_FILE: await profileFile('cluster.example:7233'),
      TEMPORAL_PROFILE: 'cluster',
      TEMPORAL_NAMESPACE: 'from-env',
      TEMPORAL_ADDRESS: 'env.example:7233',
    };
    expect(connectionSettings({}, env).namespace).toBe('from-env');
    expect(connectionSettings({}, env).connectionOptions.address).toBe('env.example:7233');
    const flagged = connectionSettings(
      { address: 'flag.example:7233', namespace: 'from-flag', apiKey: 'other-key' },
      env,
    );
    expect([flagged.connectionOptions.address, flagged.namespace, flagged.connectionOptions.apiKey]).toEqual([
      'flag.example:7233',
      'from-flag',
      'other-key',
    ]);
  });

  it('read mTLS from the TEMPORAL_TLS_* variables and from the --tls-* flags alike', () => {
    const fromVariables = connectionSettings(
      {},
      {
        TEMPORAL_TLS_CLIENT_CERT_PATH: tlsFixture('client.crt'),
        TEMPORAL_TLS_CLIENT_KEY_PATH: tlsFixture('client.key'),
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: tlsFixture('ca.crt'),
      },
    );
    const fromFlags = connectionSettings(
      { tlsCertPath: tlsFixture('client.crt'), tlsKeyPath: tlsFixture('client.key'), tlsCaPath: tlsFixture('ca.crt') },
      {},
    );
    expect(fromFlags.connectionOptions.tls).toEqual(fromVariables.connectionOptions.tls);
    const tls = fromFlags.connectionOptions.tls;
    expect(typeof tls === 'object' && tls ? text(tls.clientCertPair?.crt) : null).toBe(fixtureText('client.crt'));
  });

  it('turn TLS on for an API key, and leave a plain local connection plain', () => {
    expect(connectionSettings({}, { TEMPORAL_API_KEY: API_KEY }).connectionOptions.tls).toBe(true);
    expect(connectionSettings({ tls: true }, {}).connectionOptions.tls).toBeTruthy();
    const local = connectionSettings({}, {});
    expect(local.connectionOptions).toEqual({});
    expect(local.namespace).toBe(DEFAULT_NAMESPACE);
  });

  it('refuse a client certificate without its key, a missing file and an unknown profile, naming what is wrong', async () => {
    expect(() => connectionSettings({ tlsCertPath: tlsFixture('client.crt') }, {})).toThrow(
      /client certificate needs its key.*the key is missing/,
    );
    expect(() =>
      connectionSettings({ tlsCertPath: '/nowhere/client.crt', tlsKeyPath: tlsFixture('client.key') }, {}),
    ).toThrow(ConnectionSettingsError);
    expect(() =>
      connectionSettings({ tlsCertPath: '/nowhere/client.crt', tlsKeyPath: tlsFixture('client.key') }, {}),
    ).toThrow(/\/nowhere\/client\.crt/);
    const file = await profileFile('x:1');
    expect(() => connectionSettings({ profile: 'staging' }, { TEMPORAL_CONFIG_FILE: file })).toThrow(
      /Profile 'staging' not found/,
    );
  });

  it('are described by address, namespace and kind of security, never by a secret', async () => {
    const settings = connectionSettings(
      { profile: 'cluster' },
      { TEMPORAL_CONFIG_FILE: await profileFile('cluster.example:7233') },
    );
    const text = describeConnection(settings);
    expect(text).toBe('cluster.example:7233 namespace gates.a1b2c (mTLS, API key)');
    expect(describeConnection(connectionSettings({}, { TEMPORAL_API_KEY: API_KEY }))).toBe(
      'localhost:7233 namespace champion-loop (TLS, API key)',
    );
    const key = fixtureText('client.key');
    for (const secret of [API_KEY, key.split('\n')[1] ?? key]) expect(text).not.toContain(secret);
  });
});

describe('connecting through a TLS frontend that wants a client certificate', () => {
  let frontend: FakeFrontend;

  beforeAll(async () => {
    frontend = await startFakeFrontend({ requireClientCert: true });
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await frontend?.close();
  });

  it('the client CLI and the workers present the certificate and the API key of the profile', async () => {
    vi.stubEnv('TEMPORAL_CONFIG_FILE', await profileFile(frontend.address));
    vi.stubEnv('TEMPORAL_PROFILE', 'cluster');
    const { connection } = await connectClient({});
    await connection.close();
    const native = await NativeConnection.connect(connectionSettings({}).connectionOptions);
    await native.close();
    expect(frontend.calls.length).toBeGreaterThanOrEqual(2);
    for (const call of frontend.calls) {
      expect(call.method).toBe('/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo');
      expect(call.clientCertificate).toBe('champion-loop test client');
      expect(call.authorization).toBe(`Bearer ${API_KEY}`);
    }
    vi.unstubAllEnvs();
  });

  it('without a client certificate the handshake fails, and the error names the address but not the API key', async () => {
    const error = await rejection(
      NoServerError,
      connectClient({ address: frontend.address, tlsCaPath: tlsFixture('ca.crt'), apiKey: API_KEY }),
    );
    expect(error.message).toContain(
      `no Temporal server answers at ${frontend.address} namespace champion-loop (TLS, API key)`,
    );
    expect(error.message).not.toContain(API_KEY);
  });
});
