/** Threshold-free ROC AUC of gate margins against 0/1 targets (1 = pass); ties count one half, null when a class is empty. */
export function gateAuc(margins: readonly number[], targets: readonly number[]): number | null {
  if (margins.length !== targets.length) {
    throw new RangeError(`${margins.length} margins but ${targets.length} targets`);
  }
  const items = margins.map((margin, i) => {
    const target = targets[i];
    if (Number.isNaN(margin)) {
      throw new RangeError(`margin ${i} is NaN and cannot be ranked`);
    }
    if (target !== 0 && target !== 1) {
      throw new RangeError(`target ${i} is ${target}, not 0 or 1`);
    }
    return { margin, pass: target === 1 };
  });
  // Equal infinities subtract to NaN, which sort() reads as a tie: exactly right.
  items.sort((a, b) => a.margin - b.margin);
  // Counted in halves so that ties stay exact integers until the one final division.
  let halfWins = 0;
  let failsBelow = 0;
  let passes = 0;
  let groupPasses = 0;
  let groupFails = 0;
  const closeGroup = (): void => {
    halfWins += groupPasses * (2 * failsBelow + groupFails);
    failsBelow += groupFails;
    passes += groupPasses;
    groupPasses = 0;
    groupFails = 0;
  };
  let groupMargin: number | undefined;
  for (const item of items) {
    if (item.margin !== groupMargin) {
      closeGroup();
      groupMargin = item.margin;
    }
    if (item.pass) {
      groupPasses += 1;
    } else {
      groupFails += 1;
    }
  }
  closeGroup();
  if (passes === 0 || failsBelow === 0) {
    return null;
  }
  return halfWins / (2 * passes * failsBelow);
}
