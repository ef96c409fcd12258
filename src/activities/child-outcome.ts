import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ReserveReport, RunReport, TeacherReport } from '../contract/child-reports.js';

/** The activity's name, as history records it (the ledger exporter reads its results as reports). */
export const CHILD_OUTCOME = 'childOutcome';

export interface ChildOutcomeRequest {
  readonly workflowId: string;
  /** The kind of job the child runs, echoed back so the report's kind is known from history alone. */
  readonly kind: 'run' | 'teacher' | 'reserve';
}

/** What became of a child a generation found already started under its id. */
export type ChildOutcome =
  | { readonly status: 'running' }
  | { readonly status: 'completed'; readonly kind: 'run'; readonly report: RunReport }
  | { readonly status: 'completed'; readonly kind: 'teacher'; readonly report: TeacherReport }
  | { readonly status: 'completed'; readonly kind: 'reserve'; readonly report: ReserveReport }
  | { readonly status: 'closed'; readonly workflowId: string; readonly why: string };

/**
 * A child workflow's outcome, for a generation that started it again under the same id (after a
 * reset replays the generation, say): still running (it will report), completed (its result is its
 * report, counted then), or ended otherwise (the job runs again).
 */
export function createChildOutcome(client: Client) {
  return async function childOutcome(request: ChildOutcomeRequest): Promise<ChildOutcome> {
    const handle = client.workflow.getHandle(request.workflowId);
    let status: string;
    try {
      status = (await handle.describe()).status.name;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError)
        return { status: 'closed', workflowId: request.workflowId, why: 'no such workflow' };
      throw error;
    }
    if (status === 'RUNNING') return { status: 'running' };
    if (status !== 'COMPLETED')
      return {
        status: 'closed',
        workflowId: request.workflowId,
        why: `the child was ${status.toLowerCase().replace('_', ' ')}`,
      };
    const report: unknown = await handle.result();
    return { status: 'completed', kind: request.kind, report } as ChildOutcome;
  };
}
