// The one error every command gives for a loop id that names no workflow here.

/** No workflow with that id: the loop was never started (or the namespace is another one). */
export class NoSuchLoopError extends Error {
  constructor(
    readonly loopId: string,
    readonly workflowId: string,
  ) {
    super(
      `no loop '${loopId}' here (no workflow ${workflowId}); check the loop id and the namespace, or start it with 'champion-loop start'` +
        `; a loop whose history is gone (retention, delete) is read from its ledger copy with --config <loop.yaml>`,
    );
    this.name = 'NoSuchLoopError';
  }
}
