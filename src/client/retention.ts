import type { Client } from '@temporalio/client';

/** Shorter than this, a namespace deletes a weeks-long loop's closed runs while it still runs. */
export const RECOMMENDED_RETENTION_DAYS = 30;

/** The namespace's retention of closed workflow histories, in days; null when it cannot be read. */
export async function retentionDays(client: Client): Promise<number | null> {
  try {
    const { config } = await client.workflowService.describeNamespace({ namespace: client.options.namespace });
    const seconds = Number(config?.workflowExecutionRetentionTtl?.seconds ?? NaN);
    return Number.isFinite(seconds) ? seconds / 86_400 : null;
  } catch {
    return null;
  }
}

/** One warning line when the namespace keeps closed histories for less than a loop's life; null otherwise. */
export function retentionWarning(namespace: string, days: number | null): string | null {
  if (days === null || days >= RECOMMENDED_RETENTION_DAYS) return null;
  return (
    `warning: namespace '${namespace}' keeps closed workflow histories for ${days < 1 ? `${Math.round(days * 24)} hours` : `${Math.round(days * 10) / 10} days`}; ` +
    `a loop's earlier generations then live on only in the ledger copy in its state dir (back it up). ` +
    `Raise it with: temporal operator namespace update --namespace ${namespace} --retention ${RECOMMENDED_RETENTION_DAYS}d`
  );
}

export async function warnOnShortRetention(client: Client, warn: (line: string) => void): Promise<void> {
  const line = retentionWarning(client.options.namespace, await retentionDays(client));
  if (line) warn(line);
}
