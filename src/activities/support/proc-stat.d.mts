// Types of proc-stat.mjs for the TypeScript side (process-alive.ts).
export declare function procStatFields(pid: number): string[] | null;
