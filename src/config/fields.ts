import { z } from 'zod';

/** An integer no smaller than `min`; the message says so whatever was wrong. */
export function intAtLeast(min: number, expected = `an integer >= ${min}`) {
  return z.int({ error: expected }).min(min, { error: expected });
}

/** A number no smaller than `min`. */
export function numberAtLeast(min: number, expected = `a number >= ${min}`) {
  return z.number({ error: expected }).min(min, { error: expected });
}

/** A non-empty string described as `expected` (e.g. "a path"). */
export function nonEmptyString(expected: string) {
  return z.string({ error: expected }).min(1, { error: `${expected} (not empty)` });
}

/**
 * An http(s) URL, described as `expected`, that holds no user name or password: `credentials`
 * says where they go instead (loop.yaml travels in workflow inputs, so a secret in it would sit in every history).
 */
export function httpUrlWithoutCredentials(expected: string, credentials: string) {
  return z.string({ error: expected }).superRefine((text, context) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      context.addIssue({ code: 'custom', input: text, message: expected });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      context.addIssue({ code: 'custom', input: text, message: expected });
    } else if (url.username !== '' || url.password !== '') {
      context.addIssue({ code: 'custom', input: text, message: `a URL without credentials: ${credentials}` });
    }
  });
}
