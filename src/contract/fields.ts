import { z } from 'zod';

/** A count of items: a whole number, never negative. */
export const count = z.int({ error: 'a non-negative integer count' }).min(0, { error: 'a non-negative integer count' });

/** A file path as the stack writes it. */
export const filePath = z.string({ error: 'a file path' }).min(1, { error: 'a file path (not empty)' });
