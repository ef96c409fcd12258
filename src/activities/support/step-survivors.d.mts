// Types of step-survivors.mjs for the TypeScript side (runStep).
export declare const STEP_MARK: 'CHAMPION_LOOP_STEP';
export declare function killMarked(mark: string, group?: number): { pid: number; command: string }[];
export declare function stepMarkOf(pid: number): string | null;
export declare function processGroupOf(pid: number): number | null;
export declare function commandOf(pid: number): string;
