import { describe, expect, it } from 'vitest';
import { escapeHtml, html, joinHtml, percent, pValue, raw, shortTime } from '../../../src/client/report/html.js';

describe('report text', () => {
  it('escapes every character that could open markup or close an attribute', () => {
    expect(escapeHtml(`<script>alert("x" & 'y')</script>`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;',
    );
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(42)).toBe('42');
  });

  it('escapes what the html tag interpolates unless it is markup already', () => {
    const name = '<b>"x"</b>';
    const cell = html`<td title="${name}">${name}</td>`;
    expect(String(cell)).toBe('<td title="&lt;b&gt;&quot;x&quot;&lt;/b&gt;">&lt;b&gt;&quot;x&quot;&lt;/b&gt;</td>');
    expect(String(html`<tr>${cell}</tr>`)).toBe(`<tr>${String(cell)}</tr>`);
    expect(String(html`<ul>${['<a>', html`<li>${1}</li>`, null, undefined]}</ul>`)).toBe(
      '<ul>&lt;a&gt;<li>1</li></ul>',
    );
    expect(String(html`<style>${raw('a > b {}')}</style>`)).toBe('<style>a > b {}</style>');
    expect(String(joinHtml([html`<br>`, '&'], ' · '))).toBe('<br> · &amp;');
  });

  it('shows rates as percentages and an empty denominator as unknown', () => {
    expect(percent(7, 60)).toBe('11.67%');
    expect(percent(0, 0)).toBe('?');
  });

  it('shortens ISO times to the second and leaves other text alone', () => {
    expect(shortTime('2026-01-05T08:11:00.123Z')).toBe('2026-01-05 08:11:00Z');
    expect(shortTime('yesterday')).toBe('yesterday');
  });

  it('prints tiny p-values as a bound and missing ones as a dash', () => {
    expect(pValue(0.0022421937)).toBe('0.0022');
    expect(pValue(0.00001)).toBe('< 0.0001');
    expect(pValue(undefined)).toBe('–');
  });
});
