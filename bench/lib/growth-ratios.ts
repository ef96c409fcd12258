// How a cost grows with the ledger: the ratio of a figure between two sizes measured in the same
// run, beside the ratio of the sizes, so "linear or better" can be read off. Pure.

export interface Sized {
  /** The ledger's size (evaluations). */
  readonly size: number;
  readonly value: number;
}

export interface Growth {
  readonly from: number;
  readonly to: number;
  /** value(to) / value(from). */
  readonly ratio: number;
  /** to / from: the ratio a linear cost would show. */
  readonly sizeRatio: number;
  /**
   * The exponent k of value ~ size^k between the two sizes: 0 flat, 1 linear, 2 quadratic.
   * null when either value is not positive.
   */
  readonly exponent: number | null;
}

/** The growth between each size and the next, sizes ascending. */
export function growthBetween(points: readonly Sized[]): Growth[] {
  const sorted = [...points].sort((a, b) => a.size - b.size);
  const out: Growth[] = [];
  for (let i = 1; i < sorted.length; i += 1) {
    const a = sorted[i - 1] as Sized;
    const b = sorted[i] as Sized;
    const ratio = b.value / a.value;
    const sizeRatio = b.size / a.size;
    const exponent =
      a.value > 0 && b.value > 0 && sizeRatio !== 1 ? Math.log(b.value / a.value) / Math.log(sizeRatio) : null;
    out.push({ from: a.size, to: b.size, ratio, sizeRatio, exponent });
  }
  return out;
}

/**
 * Words for a growth: worse than linear when the cost grew by more than the size, with `slack`
 * for timing noise (1.25: up to 25% past the size ratio still counts as linear).
 */
export function growthWords(growth: Growth, slack = 1.25): 'flat' | 'sublinear' | 'linear' | 'worse than linear' {
  if (!Number.isFinite(growth.ratio)) return 'worse than linear';
  if (growth.ratio <= 1.25) return 'flat';
  if (growth.ratio <= growth.sizeRatio / slack) return 'sublinear';
  if (growth.ratio <= growth.sizeRatio * slack) return 'linear';
  return 'worse than linear';
}

/** "5,000/500 9.8x (linear), 50,000/5,000 11.2x (linear)": the figure's note. */
export function describeGrowth(growths: readonly Growth[]): string {
  const n = (size: number) => size.toLocaleString('en-US');
  return growths
    .map((g) => `${n(g.to)}/${n(g.from)} ${Number.isFinite(g.ratio) ? g.ratio.toFixed(2) : 'n/a'}x (${growthWords(g)})`)
    .join(', ');
}
