import { Command, CommanderError, Option } from 'commander';

/** A bad command line or input file: the script exits 2 with one line on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Arity = 'one' | 'many';

/** Command-line options, parsed by commander: `--name value`, `--name=value`, or `--name v1 v2 ...` for lists. */
export class CliArgs {
  private readonly values: Record<string, string[] | undefined>;
  private readonly keys = new Map<string, string>();

  constructor(argv: readonly string[], spec: Readonly<Record<string, Arity>>) {
    const program = new Command()
      .exitOverride()
      .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
      .helpOption(false)
      .allowExcessArguments(false);
    for (const [name, arity] of Object.entries(spec)) {
      // commander appends a list option's repeats; here a second `--inputs` is a mistake too.
      if (
        arity === 'many' &&
        argv.filter((token) => token === `--${name}` || token.startsWith(`--${name}=`)).length > 1
      ) {
        throw new UsageError(`--${name} given twice`);
      }
      const option = new Option(`--${name} <${arity === 'many' ? 'values...' : 'value'}>`);
      // A value that is itself an option means the value is missing; a second `--name` is a mistake.
      option.argParser((value: string, previous: string[] | undefined): string[] => {
        if (value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
        if (previous !== undefined && arity === 'one') throw new UsageError(`--${name} given twice`);
        return [...(previous ?? []), value];
      });
      program.addOption(option);
      this.keys.set(name, option.attributeName());
    }
    try {
      program.parse(argv, { from: 'user' });
    } catch (error) {
      // commander's words, but the same `--name needs a value` as a value that is another option.
      if (error instanceof CommanderError)
        throw new UsageError(
          error.message
            .replace(/^error: /, '')
            .replace(/^option '(--[^ ']+)[^']*' argument missing$/, '$1 needs a value'),
        );
      throw error;
    }
    this.values = program.opts<Record<string, string[] | undefined>>();
  }

  private all(name: string): string[] | undefined {
    const key = this.keys.get(name);
    return key === undefined ? undefined : this.values[key];
  }

  has(name: string): boolean {
    return this.all(name) !== undefined;
  }

  get(name: string): string | undefined {
    return this.all(name)?.[0];
  }

  need(name: string): string {
    const value = this.get(name);
    if (value === undefined) throw new UsageError(`--${name} is required`);
    return value;
  }

  list(name: string): string[] {
    return this.all(name) ?? [];
  }

  number(name: string): number {
    const text = this.need(name);
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number, not ${text}`);
    return value;
  }

  integer(name: string): number {
    const value = this.number(name);
    if (!Number.isSafeInteger(value)) throw new UsageError(`--${name} must be an integer, not ${value}`);
    return value;
  }
}
