// The report's only style sheet, inlined into the page: system fonts, nothing fetched.
export const REPORT_CSS = `
:root { color-scheme: light; --ink: #1d2430; --muted: #5b6574; --line: #d8dde5; --point: #7b8794; --front: #1f6feb; --champion: #d1242f; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 24px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 4px; padding-top: 12px; border-top: 2px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 6px; }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.muted { color: var(--muted); }
.meta { color: var(--muted); margin: 0 0 8px; }
.summary { padding-left: 18px; }
nav a { color: var(--front); }
figure { margin: 8px 0; }
figcaption { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin-bottom: 8px; }
th, td { text-align: left; padding: 4px 10px 4px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; font-weight: 600; }
.pass { background: #dafbe1; color: #116329; }
.fail { background: #ffebe9; color: #a40e26; }
.error { background: #fff8c5; color: #7d4e00; }
.stale { background: #eaeef2; color: #57606a; }
.champion-badge { background: #ffebe9; color: var(--champion); }
svg.front-plot { max-width: 100%; height: auto; font-size: 12px; }
svg .grid { stroke: #eef1f5; }
svg .axis, svg .tick { stroke: #8c959f; }
svg .tick-label, svg .legend text { fill: var(--ink); }
svg .axis-label { fill: var(--muted); font-size: 13px; }
svg .point, svg .point-key { fill: var(--point); fill-opacity: 0.55; }
svg .front-member, svg .front-member-key { fill: none; stroke: var(--front); stroke-width: 2; }
svg .front-line, svg .front-line-key { fill: none; stroke: var(--front); stroke-width: 1.5; }
svg .champion, svg .champion-key { fill: var(--champion); stroke: #fff; stroke-width: 1.5; }
svg.selection-plot { max-width: 100%; height: auto; font-size: 12px; }
svg .curve { color: var(--front); }
svg .curve-point { fill: var(--front); fill-opacity: 0.7; }
svg .curve-end { fill: var(--muted); font-size: 11px; }
svg.card-plot { max-width: 100%; height: auto; font-size: 12px; }
svg .card-job rect { fill: #4c78a8; stroke: #fff; stroke-width: 0.5; }
svg .card-job.alt rect { fill: #72b7b2; }
svg .card-job.need-only rect { fill-opacity: 0.45; }
svg .card-wait { fill: #e3b341; }
svg .card-oom { fill: var(--champion); }
svg .card-ceiling { stroke: var(--champion); stroke-width: 1.5; stroke-dasharray: 6 3; }
`;
