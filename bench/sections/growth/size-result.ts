// What the growth bench measures of one ledger size, and the keeper's steady passes it times.

/** Rows a keeper pass appends in steady state (a few reports' worth), and how many passes. */
export const BATCH = 20;
export const PASSES = 15;

export interface SizeResult {
  readonly size: number;
  readonly rows: number;
  readonly counts: Readonly<Record<string, number>>;
  readonly copyBytes: number;
  readonly cli: { readonly ledgerMs: number; readonly reportMs: number; readonly statusMs: number };
  readonly inProcess: { readonly ledgerMs: number; readonly reportMs: number; readonly statusMs: number };
  readonly reportBytes: number;
  readonly keeper: {
    readonly passMs: number;
    readonly perRowMs: number;
    readonly startMs: number;
    readonly rssBeforeMiB: number | null;
    readonly rssAfterMiB: number | null;
    readonly heldMiB: number | null;
    readonly heapHeldMiB: number;
  };
  readonly checks: Readonly<Record<string, boolean>>;
}
