// champion-loop render-config: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import { renderConfig } from '../render-config.js';
import { positive } from './shared.js';

/** `champion-loop render-config`. */
export function addRenderConfigCommand(program: Command): void {
  program
    .command('render-config')
    .description(
      "print the job config the loop writes for a candidate in a generation and round (the bytes PyYAML's safe_dump writes), nothing else",
    )
    .requiredOption('-c, --config <loop.yaml>', 'the loop settings')
    .requiredOption('--candidate <name>', 'the candidate, by name in the candidates file')
    .requiredOption('--generation <g>', 'the generation (its split path; `{generation}` in string overrides)')
    .requiredOption('--round <r>', "the round (the run's seed)")
    .action(async (options: { config: string; candidate: string; generation: string; round: string }) => {
      const text = await renderConfig(
        options.config,
        options.candidate,
        positive(options.generation, '--generation'),
        positive(options.round, '--round'),
      );
      process.stdout.write(text);
    });
}
