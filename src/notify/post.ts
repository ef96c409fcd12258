// One POST of one notification, bounded in time: a receiver that never answers costs one
// timeout, never the queue. The URL holds a secret (a token in its path or query): no message
// this module returns contains it.

/** How one attempt ended. */
export type PostOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  /** Worth trying again later: no answer, a timeout, a 5xx, 408 or 429. */
  | { readonly kind: 'retry'; readonly reason: string }
  /** The receiver refused this payload for good (any other 4xx): retrying sends the same refusal. */
  | { readonly kind: 'refused'; readonly reason: string };

/** How much of an error answer's body a message quotes. */
const BODY_CHARS = 200;

export async function postNotification(
  url: string,
  body: string,
  { timeoutMs, urlName, signal }: { timeoutMs: number; urlName: string; signal?: AbortSignal },
): Promise<PostOutcome> {
  const hide = (text: string) => redact(text, url, urlName);
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      redirect: 'error',
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
    // Read the answer whole (within the same timeout) so the connection is free again.
    const text = await response.text();
    if (response.ok) return { kind: 'delivered', status: response.status };
    const reason = hide(`HTTP ${response.status}${text.trim() ? `: ${text.trim().slice(0, BODY_CHARS)}` : ''}`);
    const transient = response.status >= 500 || response.status === 408 || response.status === 429;
    return transient ? { kind: 'retry', reason } : { kind: 'refused', reason };
  } catch (error) {
    if (timeout.aborted) return { kind: 'retry', reason: `no answer within ${timeoutMs} ms` };
    return { kind: 'retry', reason: hide(describe(error)) };
  }
}

/** fetch's own message is "fetch failed"; the cause says why (refused, reset, DNS). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${message}${cause}`;
}

/**
 * `text` with every form of the secret URL replaced by `$NAME` (the variable it came from): the
 * whole URL, and its path and query, which are where tokens sit.
 */
export function redact(text: string, url: string, urlName: string): string {
  const forms = new Set<string>([url]);
  try {
    const parsed = new URL(url);
    forms.add(parsed.href);
    const rest = `${parsed.pathname}${parsed.search}`;
    if (rest.length > 1) forms.add(rest);
    if (parsed.pathname.length > 1) forms.add(parsed.pathname);
    if (parsed.search.length > 1) forms.add(parsed.search);
    if (parsed.password) forms.add(parsed.password);
  } catch {
    // Not a URL: only the text as given is hidden.
  }
  let hidden = text;
  // Longest first, so a whole URL is hidden as one before its parts are.
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    if (form.length > 0) hidden = hidden.split(form).join(`$${urlName}`);
  }
  return hidden;
}
