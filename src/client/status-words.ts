/** A workflow execution's status name (`describe().status.name`) in an operator's words: `TIMED_OUT` -> `timed out`. */
export function statusInWords(status: string): string {
  return status.toLowerCase().replace('_', ' ');
}
