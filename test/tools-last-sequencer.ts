// The test files that need a tool built from source in the background (Jaeger: the tracing test)
// run after every other file, so that no worker sits waiting for a build while others could run.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that wait for a background build (scripts/tools/build.ts). */
const NEEDS_BUILT_TOOLS = [/[\\/]test[\\/]tracing[\\/]trace-tree\.test\.ts$/];

export default class ToolsLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = (file: TestSpecification) => NEEDS_BUILT_TOOLS.some((pattern) => pattern.test(file.moduleId));
    return [...sorted.filter((file) => !waits(file)), ...sorted.filter(waits)];
  }
}
