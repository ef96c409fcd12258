// Text into HTML and SVG. Markup is written with the `html` tag, which escapes every value it
// interpolates unless the value is itself markup made by `html` (or marked trusted with `raw`), so
// no call site escapes by hand and a name from the ledger cannot open a tag.

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe in element content and in quoted attribute values. */
export function escapeHtml(text: string | number | null | undefined): string {
  return String(text ?? '').replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** A fragment of markup that is safe as it stands: interpolated into `html` without escaping. */
export class Html {
  constructor(private readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/** What `html` interpolates: markup as is, text and numbers escaped, nothing for null, lists joined. */
export type HtmlValue = Html | string | number | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  return escapeHtml(value as string | number | null | undefined);
}

/** Tagged template: the literal parts are markup, every interpolated value is escaped unless it is `Html`. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  return new Html(strings.reduce((out, part, index) => out + render(values[index - 1]) + part));
}

/** Markup built without `html` that is known to be safe (a style sheet, a path of numbers). */
export function raw(markup: string): Html {
  return new Html(markup);
}

/** Fragments joined by a separator (itself markup). */
export function joinHtml(parts: readonly HtmlValue[], separator: string): Html {
  return new Html(parts.map(render).join(separator));
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
