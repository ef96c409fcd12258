// What the CLI's commands share: the connection flags, a client for the command's span, and small flag readers.
import type { Command } from 'commander';
import { inSpan } from '../../tracing/tracing.js';
import { loadLoopConfig } from '../../config/load-loop-config.js';
import type { LoopConfig } from '../../config/loop-config.js';
import { connectClient, type ConnectionFlags } from '../connect.js';
export function connectionOptions(command: Command): Command {
  return command
    .option('--address <host:port>', 'Temporal frontend (default: TEMPORAL_ADDRESS, the profile, or localhost:7233)')
    .option('--namespace <name>', 'Temporal namespace (default: TEMPORAL_NAMESPACE, the profile, or champion-loop)')
    .option('--profile <name>', 'envconfig profile (default: TEMPORAL_PROFILE or "default")')
    .option('--tls', 'connect with TLS (implied by the TLS paths and by an API key)')
    .option('--tls-cert-path <file>', 'mTLS client certificate (default: TEMPORAL_TLS_CLIENT_CERT_PATH or the profile)')
    .option('--tls-key-path <file>', 'mTLS client key (default: TEMPORAL_TLS_CLIENT_KEY_PATH or the profile)')
    .option(
      '--tls-ca-path <file>',
      "CA certificate the server's certificate must chain to (default: TEMPORAL_TLS_SERVER_CA_CERT_PATH)",
    )
    .option(
      '--tls-server-name <name>',
      'server name to verify the certificate against (default: TEMPORAL_TLS_SERVER_NAME)',
    )
    .option('--api-key <key>', 'API key (prefer TEMPORAL_API_KEY or the profile: a flag shows in the process list)');
}

/** The command being run (`start`, `status`, ...): the name of its span when tracing is on. */

/** The command being run (`start`, `status`, ...): the name of its span when tracing is on. */
let commandName = '';

/** Set by main.ts before each command's action runs. */
export function setCommandName(name: string): void {
  commandName = name;
}

export async function withClient<T>(
  flags: ConnectionFlags,
  body: (client: Awaited<ReturnType<typeof connectClient>>['client']) => Promise<T>,
): Promise<T> {
  const { client, connection } = await connectClient(flags);
  try {
    // A span of the command's own, the root of what it starts in the loop's workflows (tracing.ts).
    return await inSpan(`champion-loop ${commandName}`, { 'champion_loop.command': commandName }, () => body(client));
  } finally {
    await connection.close();
  }
}

/** The flags `ledger` and `report` share. */
export interface LedgerOutFlags {
  out?: string;
  config?: string;
  force?: boolean;
  upToDamage?: boolean;
}

/** Where a loop's ledger copy is, from its loop.yaml (for a loop whose history is gone). */
export async function copyOf(file: string): Promise<{ stateDir: string; config: LoopConfig }> {
  const config = await loadLoopConfig(file);
  return { stateDir: config.state_dir, config };
}

export function positive(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} must be a whole number >= 1 (got ${text})`);
  return value;
}
