// The values PyYAML's safe_load builds and safe_dump writes, as JS holds them: what a plain JS
// value would lose (a float that is whole, a date as PyYAML writes it) has a class of its own.

/** A Python float: `1.0` stays a float (a plain JS number that is whole is written as an int). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A YAML timestamp as PyYAML constructs it (date or datetime); `text` is how PyYAML writes it back. */
export class PyTimestamp {
  constructor(readonly text: string) {}
}

export type PyScalar = null | boolean | string | number | bigint | PyFloat | PyTimestamp;
export type PyValue = PyScalar | PyValue[] | PyMap;
/** A Python dict: insertion order, one entry per Python-equal key. */
export type PyMap = Map<PyScalar, PyValue>;
