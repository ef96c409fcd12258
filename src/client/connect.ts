import { Client, Connection } from '@temporalio/client';
import { clientTracing } from '../tracing/tracing.js';
import { loopDataConverter } from '../codec/data-converter.js';
import {
  connectionSettings,
  describeConnection,
  type ConnectionFlags,
  type ConnectionSettings,
} from '../workers/connection.js';

export type { ConnectionFlags };

/** No Temporal server answered; says where we looked and how to point elsewhere. */
export class NoServerError extends Error {
  constructor(
    readonly settings: ConnectionSettings,
    cause: unknown,
  ) {
    super(
      `no Temporal server answers at ${describeConnection(settings)} (${(cause as Error).message ?? cause}).\n` +
        "Start the local one with 'npm run dev-server', or point at yours with --address/--namespace " +
        '(TLS: --tls-cert-path/--tls-key-path/--tls-ca-path; API key: TEMPORAL_API_KEY), the TEMPORAL_* variables or a TEMPORAL_PROFILE.',
    );
    this.name = 'NoServerError';
  }
}

/** A client connected the way every Temporal tool connects (envconfig profile, TEMPORAL_* variables, flags). */
export async function connectClient(
  flags: ConnectionFlags = {},
): Promise<{ client: Client; connection: Connection; settings: ConnectionSettings }> {
  const settings = connectionSettings(flags);
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...settings.connectionOptions, connectTimeout: 5_000 });
    await connection.workflowService.getSystemInfo({});
  } catch (error) {
    throw new NoServerError(settings, error);
  }
  // With tracing on (tracing.ts), every call the client makes is a span that its workflows carry on.
  const client = new Client({
    connection,
    namespace: settings.namespace,
    dataConverter: loopDataConverter(),
    ...clientTracing(),
  });
  return { client, connection, settings };
}
