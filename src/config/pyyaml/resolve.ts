// PyYAML's implicit resolution of plain scalars (yaml/resolver.py): which YAML 1.1 tag a plain
// scalar gets, for reading a file and for deciding whether a written scalar can stay plain.

const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const MERGE = /^(?:<<)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const TIMESTAMP =
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/;
const VALUE = /^(?:=)$/;
const YAML_INDICATOR = /^(?:!|&|\*)$/;

const RESOLVERS: readonly (readonly [string, RegExp, string])[] = [
  ['bool', BOOL, 'yYnNtTfFoO'],
  ['float', FLOAT, '-+0123456789.'],
  ['int', INT, '-+0123456789'],
  ['merge', MERGE, '<'],
  ['null', NULL, '~nN'],
  ['timestamp', TIMESTAMP, '0123456789'],
  ['value', VALUE, '='],
  ['yaml', YAML_INDICATOR, '!&*'],
];

/** The tag (without its prefix) PyYAML's resolver gives a plain scalar. */
export function resolvePlain(value: string): string {
  // Python's `$` also matches before one final newline.
  const candidates = value.endsWith('\n') ? [value, value.slice(0, -1)] : [value];
  for (const [tag, regexp, first] of RESOLVERS) {
    const applies = value === '' ? tag === 'null' : first.includes(value[0] ?? '');
    if (applies && candidates.some((text) => regexp.test(text))) {
      return tag;
    }
  }
  return 'str';
}
