// @ts-check
/** Command-line options, parsed by commander: `--name value`, `--name=value`, or `--name v1 v2 ...` for lists. */
import { Command, CommanderError, Option } from 'commander';

/** A bad command line or input file: the script exits 2. */
export class UsageError extends Error {}

export class CliArgs {
  /**
   * @param {readonly string[]} argv
   * @param {Record<string, 'one' | 'many'>} spec option names (without dashes) and arity
   */
  constructor(argv, spec) {
    const program = new Command()
      .exitOverride()
      .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
      .helpOption(false)
      .allowExcessArguments(false);
    /** @type {Map<string, string>} option name -> commander's attribute name */
    this.keys = new Map();
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
      option.argParser((/** @type {string} */ value, /** @type {string[] | undefined} */ previous) => {
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
    /** @type {Record<string, string[] | undefined>} */
    this.values = program.opts();
  }

  /** @param {string} name @returns {string[] | undefined} */
  all(name) {
    const key = this.keys.get(name);
    return key === undefined ? undefined : this.values[key];
  }

  /** @param {string} name */
  has(name) {
    return this.all(name) !== undefined;
  }

  /** @param {string} name @returns {string | undefined} */
  get(name) {
    return this.all(name)?.[0];
  }

  /** @param {string} name @returns {string} */
  need(name) {
    const value = this.get(name);
    if (value === undefined) throw new UsageError(`--${name} is required`);
    return value;
  }

  /** @param {string} name @returns {string[]} */
  list(name) {
    return this.all(name) ?? [];
  }

  /** @param {string} name @returns {number} */
  number(name) {
    const value = Number(this.need(name));
    if (!Number.isFinite(value)) throw new UsageError(`--${name} must be a number`);
    return value;
  }
}
