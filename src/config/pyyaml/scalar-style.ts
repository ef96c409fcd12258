// The emitter's scalar analysis and style choice (yaml/emitter.py, analyze_scalar and
// choose_scalar_style), for block style with allow_unicode False.

export const BREAKS = '\n\u0085\u2028\u2029';
const WHITESPACE = '\0 \t\r\n\u0085\u2028\u2029';

export interface Analysis {
  readonly chars: string[];
  readonly empty: boolean;
  readonly multiline: boolean;
  readonly allowBlockPlain: boolean;
  readonly allowSingleQuoted: boolean;
}

export function analyze(scalar: string): Analysis {
  const chars = Array.from(scalar);
  if (chars.length === 0)
    return { chars, empty: true, multiline: false, allowBlockPlain: true, allowSingleQuoted: true };
  let blockIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  if (scalar.startsWith('---') || scalar.startsWith('...')) blockIndicators = true;
  let precededByWhitespace = true;
  let followedByWhitespace = chars.length === 1 || WHITESPACE.includes(chars[1] ?? '');
  let previousSpace = false;
  let previousBreak = false;
  for (let index = 0; index < chars.length; index += 1) {
    const ch = chars[index] ?? '';
    if (index === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true;
      if ('?:'.includes(ch) && followedByWhitespace) blockIndicators = true;
      if (ch === '-' && followedByWhitespace) blockIndicators = true;
    } else {
      if (ch === ':' && followedByWhitespace) blockIndicators = true;
      if (ch === '#' && precededByWhitespace) blockIndicators = true;
    }
    if (BREAKS.includes(ch)) lineBreaks = true;
    if (!(ch === '\n' || (ch >= '\x20' && ch <= '\x7E'))) {
      // allow_unicode is False: every non-ASCII character is special, printable or not.
      specialCharacters = true;
    }
    if (ch === ' ') {
      if (index === 0) leadingSpace = true;
      if (index === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (BREAKS.includes(ch)) {
      if (index === 0) leadingBreak = true;
      if (index === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = WHITESPACE.includes(ch);
    followedByWhitespace = index + 2 >= chars.length || WHITESPACE.includes(chars[index + 2] ?? '');
  }
  let allowBlockPlain = true;
  let allowSingleQuoted = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) allowBlockPlain = false;
  if (breakSpace) allowBlockPlain = allowSingleQuoted = false;
  if (spaceBreak || specialCharacters) allowBlockPlain = allowSingleQuoted = false;
  if (lineBreaks) allowBlockPlain = false;
  if (blockIndicators) allowBlockPlain = false;
  return { chars, empty: false, multiline: lineBreaks, allowBlockPlain, allowSingleQuoted };
}

export type ScalarStyle = '' | "'" | '"';

/** The emitter's choose_scalar_style in block context: plain, else single-quoted, else double-quoted (escaped). */
export function chooseStyle(plainImplicit: boolean, analysis: Analysis, simpleKey: boolean): ScalarStyle {
  let style: ScalarStyle = '"';
  if (plainImplicit && !(simpleKey && (analysis.empty || analysis.multiline)) && analysis.allowBlockPlain) {
    style = '';
  } else if (analysis.allowSingleQuoted && !(simpleKey && analysis.multiline)) {
    style = "'";
  }
  return style;
}
