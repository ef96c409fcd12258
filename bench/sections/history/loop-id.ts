/** The history section's loop: its generation workflow is loopWorkflowId(LOOP_ID). */
export const LOOP_ID = 'history';
