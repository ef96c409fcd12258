// What the CLI prints for an error: its message, then each cause under it that says something
// the message does not (Temporal's client errors keep the server's reason in their cause:
// "Failed to start Workflow" caused by "Namespace ... has no mapping defined for search attribute LoopId").

/** The error's message and the messages of its causes, each once, outermost first. */
export function errorChain(error: unknown): string[] {
  const lines: string[] = [];
  const seen = new Set<unknown>();
  for (let at: unknown = error; at !== undefined && at !== null && !seen.has(at);) {
    seen.add(at);
    const message = at instanceof Error ? at.message : typeof at === 'string' ? at : JSON.stringify(at);
    if (message !== '' && !lines.some((line) => line.includes(message))) lines.push(message);
    at = at instanceof Error ? at.cause : undefined;
  }
  return lines;
}

/** The CLI's lines for an error: `champion-loop: <message>`, then `  cause: <message>` for each cause. */
export function errorText(error: unknown): string {
  const [first = String(error), ...causes] = errorChain(error);
  return [`champion-loop: ${first}`, ...causes.map((cause) => `  cause: ${cause}`)].join('\n');
}
