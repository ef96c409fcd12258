// How a loop.yaml differs from the one a loop's run was started with (issue 18, "inputs taken on trust").
import type { LoopConfig } from '../config/loop-config.js';

/** JSON with keys in order, so two configs compare by value whatever order their keys came in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The top-level loop.yaml fields whose values differ. */
export function changedFields(running: LoopConfig, edited: LoopConfig): string[] {
  const keys = [...new Set([...Object.keys(running), ...Object.keys(edited)])];
  return keys.filter(
    (key) =>
      canonical((running as Record<string, unknown>)[key]) !== canonical((edited as Record<string, unknown>)[key]),
  );
}
