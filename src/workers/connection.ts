import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

/** The namespace temporal-dev.yaml creates; used when neither a profile nor TEMPORAL_NAMESPACE names one. */
export const DEFAULT_NAMESPACE = 'champion-loop';

/** Where and how to reach Temporal: address, namespace, TLS/mTLS, API key. */
export interface ConnectionSettings {
  readonly connectionOptions: NativeConnectionOptions;
  readonly namespace: string;
}

/**
 * Connection settings the way every Temporal tool reads them: the envconfig profile
 * (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE) and the TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TEMPORAL_TLS_* variables; explicit flags win.
 */
export function connectionSettings(flags: { address?: string; namespace?: string; profile?: string } = {}): ConnectionSettings {
  const loaded = loadClientConnectConfig(flags.profile ? { profile: flags.profile } : {});
  const connectionOptions: NativeConnectionOptions = { ...loaded.connectionOptions };
  if (flags.address) connectionOptions.address = flags.address;
  return {
    connectionOptions,
    namespace: flags.namespace ?? process.env.TEMPORAL_NAMESPACE ?? loaded.namespace ?? DEFAULT_NAMESPACE,
  };
}

/** The address for messages, never the credentials. */
export function describeConnection(settings: ConnectionSettings): string {
  const { address, tls, apiKey } = settings.connectionOptions;
  const security = apiKey ? ' (API key)' : tls ? ' (TLS)' : '';
  return `${address ?? 'localhost:7233'} namespace ${settings.namespace}${security}`;
}
