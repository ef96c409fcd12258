// The commands a hint tells a person to run name the server they talk to when it is not the one
// the CLI finds by itself (localhost:7233, namespace default): otherwise the hint leads to an error.

/** Addresses the CLI reaches without TEMPORAL_ADDRESS (its default frontend). */
const DEFAULT_ADDRESSES = ['localhost:7233', '127.0.0.1:7233'];

/** `command` as a person runs it against `address` and `namespace`: with the environment it needs, when any. */
export function cliHint(command: string, address: string, namespace = 'default'): string {
  const env = [
    ...(DEFAULT_ADDRESSES.includes(address) ? [] : [`TEMPORAL_ADDRESS=${address}`]),
    ...(namespace === 'default' ? [] : [`TEMPORAL_NAMESPACE=${namespace}`]),
  ];
  return [...env, command].join(' ');
}
