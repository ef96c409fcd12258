// @ts-check
/** Command-line options: `--name value`, `--name=value`, or `--name v1 v2 ...` for lists. */

/** A bad command line or input file: the script exits 2. */
export class UsageError extends Error {}

export class CliArgs {
  /**
   * @param {readonly string[]} argv
   * @param {Record<string, 'one' | 'many'>} spec option names (without dashes) and arity
   */
  constructor(argv, spec) {
    /** @type {Map<string, string[]>} */
    this.values = new Map();
    let current = '';
    for (const token of argv) {
      if (token.startsWith('--')) {
        const [name = '', inline] = token.slice(2).split(/=(.*)/s, 2);
        if (!(name in spec)) throw new UsageError(`unknown option --${name}`);
        if (this.values.has(name)) throw new UsageError(`--${name} given twice`);
        this.values.set(name, inline === undefined ? [] : [inline]);
        current = inline === undefined ? name : '';
        continue;
      }
      const list = current ? this.values.get(current) : undefined;
      if (!list || (spec[current] === 'one' && list.length === 1)) {
        throw new UsageError(`unexpected argument ${token}`);
      }
      list.push(token);
    }
    for (const [name, list] of this.values) {
      if (list.length === 0) throw new UsageError(`--${name} needs a value`);
    }
  }

  /** @param {string} name */
  has(name) {
    return this.values.has(name);
  }

  /** @param {string} name @returns {string | undefined} */
  get(name) {
    return this.values.get(name)?.[0];
  }

  /** @param {string} name @returns {string} */
  need(name) {
    const value = this.get(name);
    if (value === undefined) throw new UsageError(`--${name} is required`);
    return value;
  }

  /** @param {string} name @returns {string[]} */
  list(name) {
    return this.values.get(name) ?? [];
  }

  /** @param {string} name @returns {number} */
  number(name) {
    const value = Number(this.need(name));
    if (!Number.isFinite(value)) throw new UsageError(`--${name} must be a number`);
    return value;
  }
}
