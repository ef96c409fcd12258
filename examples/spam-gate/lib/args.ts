/** A bad command line or input file: the script exits 2 with one line on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Arity = 'one' | 'many';

/** Command-line options: `--name value`, `--name=value`, or `--name v1 v2 ...` for lists. */
export class CliArgs {
  private readonly values = new Map<string, string[]>();

  constructor(argv: readonly string[], spec: Readonly<Record<string, Arity>>) {
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
      const list = current === '' ? undefined : this.values.get(current);
      if (list === undefined || (spec[current] === 'one' && list.length === 1)) {
        throw new UsageError(`unexpected argument ${token}`);
      }
      list.push(token);
    }
    for (const [name, list] of this.values) {
      if (list.length === 0) throw new UsageError(`--${name} needs a value`);
    }
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  get(name: string): string | undefined {
    return this.values.get(name)?.[0];
  }

  need(name: string): string {
    const value = this.get(name);
    if (value === undefined) throw new UsageError(`--${name} is required`);
    return value;
  }

  list(name: string): string[] {
    return this.values.get(name) ?? [];
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
