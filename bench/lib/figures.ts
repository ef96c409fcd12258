// The benchmark's figures, each with its goal beside it, and the table they print as. Pure.

export interface Goal {
  readonly op: '<' | '<=';
  readonly value: number;
}

export interface Figure {
  readonly section: string;
  readonly name: string;
  /** null: not measured in this run (a section left out, or nothing to measure). */
  readonly value: number | null;
  readonly unit: string;
  readonly goal: Goal | null;
  /** Whether the goal is met; null without a goal or a value. */
  readonly met: boolean | null;
  readonly note: string | null;
}

export function figure(
  section: string,
  name: string,
  value: number | null,
  unit: string,
  goal: Goal | null = null,
  note: string | null = null,
): Figure {
  const measured = value !== null && Number.isFinite(value);
  const met = goal === null || !measured ? null : goal.op === '<' ? value < goal.value : value <= goal.value;
  return { section, name, value: measured ? value : null, unit, goal, met, note };
}

/** A number as the table shows it: three significant digits, thousands grouped. */
function formatValue(value: number | null, unit: string): string {
  if (value === null) return 'n/a';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const text = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit === '' ? text : unit === 'x' ? `${text}x` : `${text} ${unit}`;
}

function goalText(figure: Figure): string {
  if (figure.goal === null) return '';
  return `${figure.goal.op} ${formatValue(figure.goal.value, figure.unit)}`;
}

function verdict(figure: Figure): string {
  if (figure.met === null) return figure.goal === null ? '' : 'n/a';
  return figure.met ? 'met' : 'MISSED';
}

/** Plain-text table: section, figure, value, goal, verdict; notes under their row. */
export function renderTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [f.section, f.name, formatValue(f.value, f.unit), goalText(f), verdict(f)]);
  const header = ['section', 'figure', 'value', 'goal', ''];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 2 || column === 3 ? cell.padStart(widths[column] as number) : cell.padEnd(widths[column] as number),
      )
      .join('  ')
      .trimEnd();
  const out = [line(header), widths.map((width) => '-'.repeat(width)).join('  ')];
  figures.forEach((f, index) => {
    out.push(line(rows[index] as string[]));
    if (f.note) out.push(`${' '.repeat((widths[0] as number) + 2)}  (${f.note})`);
  });
  return out.join('\n');
}

/** One stage of a latency breakdown as the bench prints it. */
export interface StageRow {
  readonly name: string;
  readonly what: string;
  readonly p50: number;
  readonly p95: number;
  readonly mean: number;
}

/** A breakdown table: each stage's p50, p95, mean and share of the summed means. */
export function renderStages(title: string, stages: readonly StageRow[]): string {
  const total = stages.reduce((sum, stage) => sum + (Number.isFinite(stage.mean) ? stage.mean : 0), 0);
  const width = Math.max(5, ...stages.map((stage) => stage.name.length));
  const num = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a').padStart(6);
  const lines = [
    title,
    `${'stage'.padEnd(width)}  ${'p50'.padStart(6)}  ${'p95'.padStart(6)}  ${'mean'.padStart(6)}  share  (ms)`,
  ];
  for (const stage of stages) {
    const share = total > 0 && Number.isFinite(stage.mean) ? `${((100 * stage.mean) / total).toFixed(0)}%` : '';
    lines.push(
      `${stage.name.padEnd(width)}  ${num(stage.p50)}  ${num(stage.p95)}  ${num(stage.mean)}  ${share.padStart(5)}  ${stage.what}`,
    );
  }
  lines.push(`${'sum of means'.padEnd(width)}  ${''.padStart(6)}  ${''.padStart(6)}  ${num(total)}`);
  return lines.join('\n');
}
