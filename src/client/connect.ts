import { Client, Connection } from '@temporalio/client';
import { connectionSettings, describeConnection, type ConnectionSettings } from '../workers/connection.js';

/** The connection flags every command takes. */
export interface ConnectionFlags {
  readonly address?: string;
  readonly namespace?: string;
  readonly profile?: string;
}

/** No Temporal server answered; says where we looked and how to point elsewhere. */
export class NoServerError extends Error {
  constructor(readonly settings: ConnectionSettings, cause: unknown) {
    super(
      `no Temporal server answers at ${describeConnection(settings)} (${(cause as Error).message ?? cause}).\n` +
        "Start the local one with 'npm run dev-server', or point at yours with --address/--namespace, " +
        'TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE or a TEMPORAL_PROFILE.',
    );
    this.name = 'NoServerError';
  }
}

/** A client connected the way every Temporal tool connects (envconfig profile, TEMPORAL_* variables, flags). */
export async function connectClient(flags: ConnectionFlags = {}): Promise<{ client: Client; connection: Connection; settings: ConnectionSettings }> {
  const settings = connectionSettings(flags);
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...settings.connectionOptions, connectTimeout: 5_000 });
    await connection.workflowService.getSystemInfo({});
  } catch (error) {
    throw new NoServerError(settings, error);
  }
  return { client: new Client({ connection, namespace: settings.namespace }), connection, settings };
}
