import { loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

/** The namespace temporal-dev.yaml creates; used when neither a profile nor TEMPORAL_NAMESPACE names one. */
export const DEFAULT_NAMESPACE = 'champion-loop';

/** The connection flags every command and worker takes, named as the `temporal` CLI names them. */
export interface ConnectionFlags {
  readonly address?: string;
  readonly namespace?: string;
  readonly profile?: string;
  readonly apiKey?: string;
  readonly tls?: boolean;
  readonly tlsCertPath?: string;
  readonly tlsKeyPath?: string;
  readonly tlsCaPath?: string;
  readonly tlsServerName?: string;
}

/** Where and how to reach Temporal: address, namespace, TLS/mTLS, API key. */
export interface ConnectionSettings {
  readonly connectionOptions: NativeConnectionOptions;
  readonly namespace: string;
}

/** The connection settings cannot be used as given (a TLS file missing, a cert without its key). */
export class ConnectionSettingsError extends Error {
  override readonly name = 'ConnectionSettingsError';
}

// Each flag stands for the envconfig variable of the same meaning, so flags, variables and the
// profile go through one code path (@temporalio/envconfig's) and flags win.
const FLAG_VARIABLES: readonly [keyof ConnectionFlags, string][] = [
  ['address', 'TEMPORAL_ADDRESS'],
  ['namespace', 'TEMPORAL_NAMESPACE'],
  ['apiKey', 'TEMPORAL_API_KEY'],
  ['tlsCertPath', 'TEMPORAL_TLS_CLIENT_CERT_PATH'],
  ['tlsKeyPath', 'TEMPORAL_TLS_CLIENT_KEY_PATH'],
  ['tlsCaPath', 'TEMPORAL_TLS_SERVER_CA_CERT_PATH'],
  ['tlsServerName', 'TEMPORAL_TLS_SERVER_NAME'],
];

/**
 * Connection settings the way every Temporal tool reads them: the envconfig profile
 * (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE) and the TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TEMPORAL_TLS_* variables; explicit flags win. The same settings serve the
 * client (Connection) and the workers (NativeConnection).
 */
export function connectionSettings(
  flags: ConnectionFlags = {},
  env: NodeJS.ProcessEnv = process.env,
): ConnectionSettings {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) variables[name] = value;
  for (const [flag, variable] of FLAG_VARIABLES) {
    const value = flags[flag];
    if (typeof value === 'string' && value !== '') variables[variable] = value;
  }
  if (flags.tls !== undefined) variables.TEMPORAL_TLS = String(flags.tls);
  let loaded: ReturnType<typeof toClientOptions>;
  try {
    const profile = loadClientConfigProfile({
      ...(flags.profile ? { profile: flags.profile } : {}),
      overrideEnvVars: variables,
    });
    if (
      profile.tls &&
      profile.tls.disabled !== true &&
      Boolean(profile.tls.clientCert) !== Boolean(profile.tls.clientKey)
    ) {
      throw new ConnectionSettingsError(
        `a TLS client certificate needs its key and the key its certificate: ${profile.tls.clientCert ? 'the key' : 'the certificate'} is missing ` +
          "(--tls-key-path / --tls-cert-path, TEMPORAL_TLS_CLIENT_KEY_PATH / TEMPORAL_TLS_CLIENT_CERT_PATH, or the profile's tls table)",
      );
    }
    loaded = toClientOptions(profile);
  } catch (error) {
    if (error instanceof ConnectionSettingsError) throw error;
    // A missing cert file, a bad TOML file or an unknown profile: say which settings could not be read.
    throw new ConnectionSettingsError(`cannot read the Temporal connection settings: ${(error as Error).message}`);
  }
  const connectionOptions: NativeConnectionOptions = {};
  // Keys left undefined would override the SDK's defaults with nothing.
  for (const [key, value] of Object.entries(loaded.connectionOptions)) {
    if (value !== undefined) (connectionOptions as Record<string, unknown>)[key] = value;
  }
  return { connectionOptions, namespace: loaded.namespace ?? DEFAULT_NAMESPACE };
}

/** The address for messages, never the credentials: what secures the connection, not its secrets. */
export function describeConnection(settings: ConnectionSettings): string {
  const { address, tls, apiKey } = settings.connectionOptions;
  const security: string[] = [];
  if (tls && typeof tls === 'object' && tls.clientCertPair) security.push('mTLS');
  else if (tls) security.push('TLS');
  if (apiKey) security.push('API key');
  return `${address ?? 'localhost:7233'} namespace ${settings.namespace}${security.length > 0 ? ` (${security.join(', ')})` : ''}`;
}
