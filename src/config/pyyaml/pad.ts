/** Zero-padded decimal, as Python's `%02d` / `%03d` / `%06d` write it. */
export const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
