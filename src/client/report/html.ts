// Text into HTML and SVG: everything from the ledger goes through `escapeHtml`.

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in element content and in quoted attribute values. */
export function escapeHtml(text: string | number | null | undefined): string {
  return String(text ?? '').replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** A rate as a percentage with two decimals; `?` when the denominator is zero. */
export function percent(count: number, of: number): string {
  return of > 0 ? `${((count / of) * 100).toFixed(2)}%` : '?';
}

/** An ISO time as `2026-01-02 03:04:05Z` (what a person reads; the ledger keeps the full value). */
export function shortTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return match ? `${match[1]} ${match[2]}Z` : iso;
}

/** A p-value for a table: four decimals, or a bound when smaller. */
export function pValue(p: number | undefined): string {
  if (p === undefined || !Number.isFinite(p)) return '–';
  return p < 0.0001 ? '< 0.0001' : p.toFixed(4);
}
