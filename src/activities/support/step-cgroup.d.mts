// Types of step-cgroup.mjs for the TypeScript side (runStep, the lane worker).
export declare function stepCgroups(): { root: string | null; why: string };
export declare function stepCgroupPath(mark: string): string | null;
export declare function makeStepCgroup(mark: string): string | null;
export declare function inCgroup(procs: string, command: readonly string[]): string[];
export declare function killStepCgroup(
  mark: string,
  group?: number,
  waitMs?: number,
): { pid: number; command: string }[];
export declare function removeStepCgroup(mark: string): boolean;
