// Job configs byte for byte as the seed writes them: src/config/pyyaml/ against real PyYAML.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configText } from '../../src/activities/prepare-run.js';
import { dumpPyYaml, loadPyYaml, PyFloat, PyTimestamp, type PyMap, toJsonSafe } from '../../src/config/pyyaml/index.js';
import { pyyamlDump, pyyamlUnavailable, type PyyamlCase, type PyyamlResult, type SeedJob } from '../helpers/pyyaml.js';

const unavailable = pyyamlUnavailable();
if (unavailable !== null) console.warn(unavailable);

/** Our bytes for a case: what prepareRun writes for a job, or a plain round trip. */
function ours(item: PyyamlCase): string {
  let value: unknown;
  try {
    value = loadPyYaml(item.text);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
  if (item.job === undefined) return dumpPyYaml(value);
  const { generation, split, seed } = item.job;
  let overrides: Record<string, unknown>;
  try {
    overrides =
      item.job.overridesYaml === undefined
        ? (item.job.overrides ?? {})
        : overridesThroughHistory(item.job.overridesYaml);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
  return configText(value as Map<unknown, unknown>, { name: 'c', base_config: '', overrides }, generation, split, seed);
}

/** Overrides as loadCandidates reads them (PyYAML's meaning, JSON-safe) after a trip through JSON, as history carries them. */
function overridesThroughHistory(text: string): Record<string, unknown> {
  const map = loadPyYaml(text) as PyMap;
  return JSON.parse(
    JSON.stringify(Object.fromEntries([...map].map(([key, value]) => [key as string, toJsonSafe(value)]))),
  ) as Record<string, unknown>;
}

/** Every case against PyYAML in one python3 run; a case PyYAML refuses must be refused here too. */
function expectSameAsPyyaml(cases: readonly PyyamlCase[], note = ''): PyyamlResult[] {
  const theirs = pyyamlDump(cases);
  cases.forEach((item, index) => {
    const result = theirs[index];
    const mine = ours(item);
    if (result?.ok === false) {
      expect(mine, `PyYAML refused (${result.error}) ${note}:\n${item.text}`).toMatch(/^error: /);
      return;
    }
    expect(mine, `case ${index} ${note}:\n${item.text}\n${JSON.stringify(item.job ?? null)}`).toBe(result?.text);
  });
  return theirs;
}

const FIXED = [
  // yes/no/on/off/y/n as booleans and as strings
  "a: yes\nb: 'yes'\nc: off\nd: 'off'\ne: y\nf: n\ng: 'Y'\nh: On\ni: NO\nj: 'true'\nk: False\nl: 'No'\n",
  // null and ~
  "a: null\nb: ~\nc:\nd: 'null'\ne: '~'\nf: ''\ng: 'Null'\n",
  // ints with leading zeros, hex- and octal-looking strings
  "a: 012\nb: '012'\nc: 08\nd: 0x1F\ne: '0x1F'\nf: 0o17\ng: '0b101'\nh: 0b101\ni: 1_000\nj: 12345678901234567890\nk: -0\nl: +12\nm: '0o17'\nn: 0017\n",
  // floats
  "a: 1.0\nb: 1e-5\nc: 1.0e-5\nd: .inf\ne: -.inf\nf: .nan\ng: -0.0\nh: 1e5\ni: '1e5'\nj: 1.5e+20\nk: 0.00001\nl: 123456789012345678.0\nm: 0.1\nn: 3.14159\no: 1.0e+16\np: 1.0e+15\nq: 100.\nr: '.inf'\ns: 1:30.5\nt: '1.0'\nu: 0.0001\nv: .5\nw: -1.5e-300\n",
  // times (sexagesimal) and dates
  "a: 1:30\nb: '1:30'\nc: 0:30\nd: 190:20:30\ne: '190:20:30'\n",
  "a: 2024-01-01\nb: '2024-01-01'\nc: 2024-01-01 10:00:00\nd: 2024-01-01T10:00:00Z\ne: 2024-1-2 3:04:05.123456789 -05:30\nf: 2001-12-14t21:59:43.10-05:00\ng: 2024-01-01 10:00:00.5\n",
  // strings over 80 characters, folded as PyYAML folds them
  'long: this is a very long string that goes well over the eighty character limit of the emitter so it must fold somewhere nice\n' +
    "longq: 'yes this is a very long string that goes well over the eighty character limit of the emitter so it must fold'\n" +
    'longd: "unicode \\u00e9 this is a very long string that goes well over the eighty character limit of the emitter so it must fold"\n' +
    `nospace: ${'x'.repeat(120)}\n` +
    `list:\n- ${'word '.repeat(30).trim()}\n- nested:\n    deeper: ${'deep words '.repeat(12).trim()}\n`,
  // multi-line strings, unicode, control characters
  'm: "line one\\nline two\\n"\nn: "trailing space \\n x"\no: |\n  literal\n  block\np: " lead"\nq: "x\\ty"\n' +
    'r: "\\u00e9\\u4e2d\\U0001F600\\u00a0\\u0085\\u2028\\ufeff"\ns: "a\\u0001b"\nt: >\n  folded\n  text\n\n  para\nu: "\\n"\nv: "a\\n b"\n',
  // nested maps and lists, empty containers
  'a:\n  b:\n  - 1\n  - [2, 3]\n  - {x: 1, y: []}\n  - - deep\n    - er\n  c: {}\nd: []\ne:\n- a: 1\n  b: 2\n- []\n- {}\n- - - x\n',
  // keys that need quoting, non-string keys, long and multi-line keys
  "'yes': 1\n'1': 2\n1: 3\n? |\n  multi\n  line\n: 4\n'': 5\n'a: b': 6\n'#x': 7\n-x: 8\n'- x': 9\ntrue: 10\n~: 11\n1.5: 12\n2024-01-01: 13\n" +
    `${'k'.repeat(126)}: 14\n${'j'.repeat(122)}: 15\n${'i'.repeat(123)}: 16\n`,
  // anchors, aliases and merge keys, duplicate keys
  'a: &x {b: 1}\nc: *x\nd: &y [1, 2]\ne: *y\nf: &z 2024-01-01\ng: *z\nh: &s str\ni: *s\n',
  'base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n  z: 4\nn:\n  <<: [{a: 1}, {b: 2, a: 5}]\n  c: 3\n',
  'a: 1\na: 2\nb: 3\n1: x\n1.0: y\ntrue: z\n',
  // indicators
  "a: '---'\nb: '...x'\nc: '- '\nd: ':x'\ne: 'x:'\nf: 'a #b'\ng: 'a#b'\nh: '@x'\ni: '`x'\nj: '%x'\nk: '!x'\nl: '&x'\nm: '*x'\nn: '|x'\no: '>x'\n" +
    "p: '?x'\nq: '? x'\nr: ',x'\ns: '[x'\nt: '='\nu: '<<'\nv: 'x,y'\nw: ' '\nx: \"it's\"\ny: 'a: b'\nz: 'x - y'\n",
  // explicit tags
  "a: !!str 12\nb: !!float 1\nc: !!int '7'\nd: ! 12\ne: !!bool yes\nf: !!null ''\n",
  // not a mapping at all: scalars end the document
  'just a scalar\n',
  "'yes'\n",
  '- a\n- b\n',
  '{}\n',
  // refused by both
  'a: 2024-02-30\n',
];

describe('PyYAML-compatible emitter (no Python needed)', () => {
  it('quotes strings YAML 1.1 would read as something else and writes floats as Python does', () => {
    const text = dumpPyYaml(
      new Map<unknown, unknown>([
        ['flags', ['yes', 'off', 'y', 'n', '1:30', '2024-01-01', '0o17', '0x1F', '012', '1e5', '.inf', '']],
        [
          'floats',
          [
            new PyFloat(1),
            new PyFloat(1e-5),
            new PyFloat(Infinity),
            new PyFloat(NaN),
            new PyFloat(-0),
            0.5,
            new PyFloat(1e16 + 2),
          ],
        ],
        ['bools', [true, false, null]],
        ['when', new PyTimestamp('2024-01-01')],
        ['empty', new Map()],
        ['none', []],
      ]),
    );
    expect(text).toBe(
      [
        'flags:',
        "- 'yes'",
        "- 'off'",
        '- y',
        '- n',
        "- '1:30'",
        "- '2024-01-01'",
        '- 0o17',
        "- '0x1F'",
        "- '012'",
        '- 1e5',
        "- '.inf'",
        "- ''",
        'floats:',
        '- 1.0',
        '- 1.0e-05',
        '- .inf',
        '- .nan',
        '- -0.0',
        '- 0.5',
        '- 1.0000000000000002e+16',
        'bools:',
        '- true',
        '- false',
        '- null',
        'when: 2024-01-01',
        'empty: {}',
        'none: []',
        '',
      ].join('\n'),
    );
  });

  it('reads YAML 1.1 as PyYAML does: yes is true, 1:30 is 90, 012 is 10, 1e5 a string', () => {
    const value = loadPyYaml('a: yes\nb: 1:30\nc: 012\nd: 1e5\ne: 1.0\nf: 2024-01-01\ng: y\n') as PyMap;
    expect(value.get('a')).toBe(true);
    expect(value.get('b')).toBe(90);
    expect(value.get('c')).toBe(10);
    expect(value.get('d')).toBe('1e5');
    expect(value.get('e')).toEqual(new PyFloat(1));
    expect(value.get('f')).toEqual(new PyTimestamp('2024-01-01'));
    expect(value.get('g')).toBe('y');
  });
});

describe.skipIf(unavailable !== null)('PyYAML-compatible configs against real PyYAML', () => {
  it('writes the bytes yaml.safe_dump writes for every kind of value the seed meets', () => {
    expectSameAsPyyaml(FIXED.map((text) => ({ text })));
  });

  it('builds the job config as the seed does: {generation} expanded in top-level strings only, split and seed last', () => {
    const job: SeedJob = {
      overrides: {
        teacher: 'artifacts/teachers/gen-{generation}/insample.jsonl',
        lr: 0.5,
        epochs: 4,
        flag: 'yes',
        nested: { path: 'gen-{generation}/x', items: ['{generation}', 'on'] },
        list: ['{generation}'],
      },
      generation: 7,
      split: '/srv/state/splits/gen-007.yaml',
      seed: 20260931,
    };
    const base = 'epochs: 2\nflag: no\nwhen: 2024-01-01\nnested: {keep: 1}\nlr: 1.0\n';
    expectSameAsPyyaml([{ text: base, job }]);
    const text = ours({ text: base, job });
    expect(text).toContain('teacher: artifacts/teachers/gen-007/insample.jsonl\n');
    expect(text).toContain("  path: gen-{generation}/x\n  items:\n  - '{generation}'\n  - 'on'\n");
    expect(text.endsWith('split: /srv/state/splits/gen-007.yaml\nseed: 20260931\n')).toBe(true);
  });

  it('agrees with PyYAML byte for byte on random configs (one python3 run per batch)', () => {
    const seed = Date.now() ^ (Math.random() * 0x7fffffff);
    const cases = fc.sample(caseArbitrary, { numRuns: 500, seed });
    const theirs = expectSameAsPyyaml(cases, `(fast-check seed ${seed})`);
    // Most random sources are configs PyYAML accepts (a plain `=` is refused by both).
    expect(theirs.filter((result) => result.ok).length).toBeGreaterThan(cases.length * 0.8);
  }, 60_000);
});

// ---- random YAML sources of the kinds base configs hold ---------------------------------------

const PLAIN_TOKENS = [
  'yes',
  'no',
  'on',
  'off',
  'y',
  'n',
  'Y',
  'N',
  'Yes',
  'OFF',
  'true',
  'False',
  'TRUE',
  'null',
  'Null',
  '~',
  '012',
  '08',
  '0x1F',
  '0o17',
  '0b101',
  '1_000',
  '-0',
  '+12',
  '0',
  '12345678901234567890',
  '1e5',
  '1e-5',
  '1.0',
  '1.0e-5',
  '1.5e+20',
  '.inf',
  '-.inf',
  '+.inf',
  '.nan',
  '-0.0',
  '0.1',
  '100.',
  '.5',
  '3.14159',
  '1.0e+16',
  '1:30',
  '0:30',
  '190:20:30',
  '1:30.5',
  '2024-01-01',
  '2024-1-2 3:04:05',
  '2024-01-01T10:00:00Z',
  '2001-12-14 21:59:43.10 -5',
  '=',
  'a b',
  'x-y',
  'path/to/file.yaml',
  'gen-{generation}/t.jsonl',
  '{generation}',
  'a:b',
  'a,b',
  'a#b',
  'C++',
  'e^x',
  'x?',
];
const KEY_TOKENS = [
  'lr',
  'epochs',
  'yes',
  'on',
  '1',
  '2',
  '1.5',
  'true',
  '~',
  'split',
  'seed',
  '2024-01-01',
  'x y',
  'a-b',
  '0x1F',
];
const CHARS = [
  'a',
  'b',
  'z',
  'Q',
  '0',
  '7',
  ' ',
  ' ',
  '\n',
  '\t',
  ':',
  '#',
  '-',
  "'",
  '"',
  '\\',
  '{',
  '}',
  '[',
  ',',
  '!',
  '&',
  '*',
  '?',
  '|',
  '>',
  '%',
  '@',
  '`',
  '.',
  '\u00e9',
  '\u4e2d',
  '\u{1F600}',
  '\u00a0',
  '\u0085',
  '\u2028',
  '\u0001',
  '\ufeff',
];

/** A YAML double-quoted scalar for any string: every non-ASCII or control character escaped. */
function doubleQuoted(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (code >= 0x20 && code <= 0x7e) out += ch;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

const randomText = fc.oneof(
  fc.array(fc.constantFrom(...CHARS), { maxLength: 20 }).map((chars) => chars.join('')),
  fc
    .array(fc.constantFrom('word', 'longer', 'a', 'yes', 'x:', '#', '-', 'é', '1:30'), { minLength: 10, maxLength: 40 })
    .map((words) => words.join(' ')),
  fc.constantFrom(...PLAIN_TOKENS),
);

const scalarSource = fc.oneof(
  fc.constantFrom(...PLAIN_TOKENS),
  fc.integer({ min: -100000, max: 100000 }).map(String),
  fc.double({ noNaN: true }).map((value) => String(value)),
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .map((value) => (Number.isInteger(value) ? `${value}.0` : String(value))),
  randomText.map(doubleQuoted),
  fc
    .string({ unit: fc.constantFrom('a', 'b', ' ', ':', '#', '-', "'", 'y', '1') })
    .filter((text) => !text.includes('\n'))
    .map((text) => `'${text.replaceAll("'", "''")}'`),
);

const keySource = fc.oneof(
  fc.constantFrom(...KEY_TOKENS),
  fc.stringMatching(/^[a-z][a-z_]{0,12}$/),
  fc.string({ unit: fc.constantFrom('a', ' ', ':', '#', '-', 'é', '1', "'") }).map((text) => doubleQuoted(text)),
  fc.integer({ min: 100, max: 140 }).map((length) => 'k'.repeat(length)),
);

type Source =
  | { readonly kind: 'scalar'; readonly text: string }
  | { readonly kind: 'block'; readonly header: string; readonly lines: string[] }
  | { readonly kind: 'list'; readonly items: Source[] }
  | { readonly kind: 'map'; readonly entries: [string, Source][] };

const { source } = fc.letrec<{ source: Source }>((tie) => ({
  source: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarSource.map((text): Source => ({ kind: 'scalar', text })),
    fc
      .record({
        header: fc.constantFrom('|', '>', '|-', '>+', '|+', '>-'),
        lines: fc.array(
          fc.constantFrom(
            '',
            'plain words',
            'yes',
            'x: y',
            '  indented',
            'a long line of words that goes on and on past the eighty column limit of the emitter',
            '# not a comment',
          ),
          { minLength: 1, maxLength: 4 },
        ),
      })
      .filter(({ lines }) => !(lines[0] ?? '').startsWith(' '))
      .map(({ header, lines }): Source => ({ kind: 'block', header, lines })),
    fc.array(tie('source'), { maxLength: 4 }).map((items): Source => ({ kind: 'list', items })),
    fc.array(fc.tuple(keySource, tie('source')), { maxLength: 4 }).map((entries): Source => ({ kind: 'map', entries })),
  ),
}));

function render(value: Source, indent: number): string {
  const pad = ' '.repeat(indent);
  switch (value.kind) {
    case 'scalar':
      return ` ${value.text}\n`;
    case 'block':
      return ` ${value.header}\n${value.lines.map((line) => (line === '' ? '\n' : `${pad}  ${line}\n`)).join('')}`;
    case 'list':
      return value.items.length === 0
        ? ' []\n'
        : `\n${value.items.map((item) => `${pad}  -${render(item, indent + 4)}`).join('')}`;
    case 'map':
      return value.entries.length === 0
        ? ' {}\n'
        : `\n${value.entries.map(([key, item]) => `${pad}  ${key}:${render(item, indent + 2)}`).join('')}`;
  }
}

const overrideValue = fc.oneof(
  fc.constantFrom('yes', 'on', '1:30', 'gen-{generation}', 'a/{generation}/b', '', 'x y', 'é'),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((value) => !Number.isInteger(value)),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(fc.constantFrom('p', 'q', 'yes'), fc.constantFrom('{generation}', 'off', 1, 0.5)),
  fc.array(fc.constantFrom('{generation}', 'no', 2), { maxLength: 3 }),
);

const caseArbitrary: fc.Arbitrary<PyyamlCase> = fc
  .record({
    entries: fc.array(fc.tuple(keySource, source), { minLength: 1, maxLength: 6 }),
    job: fc.option(
      fc.record({
        overrides: fc.dictionary(fc.constantFrom('lr', 'epochs', 'teacher', 'yes', 'new_key', 'split'), overrideValue, {
          maxKeys: 4,
        }),
        overridesYaml: fc.option(
          fc
            .array(
              fc.tuple(
                fc.constantFrom('lr', 'epochs', 'teacher', "'yes'", 'new_key', 'split', 'gate_soft_targets'),
                source,
              ),
              { maxLength: 4 },
            )
            .map((entries) =>
              entries.length === 0 ? '{}\n' : entries.map(([key, item]) => `${key}:${render(item, 0)}`).join(''),
            ),
          { nil: undefined },
        ),
        generation: fc.integer({ min: 1, max: 1200 }),
        split: fc.constantFrom('/srv/state/splits/gen-001.yaml', '/a b/splits/gen-012.yaml'),
        seed: fc.integer({ min: 20260929, max: 20261929 }),
      }),
      { nil: undefined },
    ),
  })
  .map(({ entries, job }) => {
    const text = entries.map(([key, item]) => `${key}:${render(item, 0)}`).join('');
    if (job === undefined) return { text };
    // Overrides as candidates.yaml holds them (through loadCandidates and history), or as JSON values.
    const { overridesYaml, overrides, ...rest } = job;
    return { text, job: overridesYaml === undefined ? { ...rest, overrides } : { ...rest, overridesYaml } };
  });
