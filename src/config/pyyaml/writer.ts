// The emitter's output (yaml/emitter.py): column and indentation, indicators, and scalar text
// written plain, single-quoted or double-quoted (escaped), folded at width 80 as PyYAML folds it.
import { BREAKS } from './scalar-style.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
const ESCAPES: Record<string, string> = {
  '\0': '0',
  '\x07': 'a',
  '\x08': 'b',
  '\x09': 't',
  '\x0A': 'n',
  '\x0B': 'v',
  '\x0C': 'f',
  '\x0D': 'r',
  '\x1B': 'e',
  '"': '"',
  '\\': '\\',
  '\u0085': 'N',
  '\u00A0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

export class Writer {
  protected out = '';
  private column = 0;
  private whitespace = true;
  protected indention = true;
  protected openEnded = false;
  protected indent: number | null = null;
  protected readonly indents: (number | null)[] = [];

  protected increaseIndent(flow: boolean, indentless = false): void {
    this.indents.push(this.indent);
    if (this.indent === null) {
      this.indent = flow ? BEST_INDENT : 0;
    } else if (!indentless) {
      this.indent += BEST_INDENT;
    }
  }

  private write(data: string): void {
    this.out += data;
  }

  protected writeIndicator(indicator: string, needWhitespace: boolean, whitespace = false, indention = false): void {
    const data = this.whitespace || !needWhitespace ? indicator : ` ${indicator}`;
    this.whitespace = whitespace;
    this.indention = this.indention && indention;
    this.column += Array.from(data).length;
    this.openEnded = false;
    this.write(data);
  }

  protected writeIndent(): void {
    const indent = this.indent ?? 0;
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) {
      this.writeLineBreak();
    }
    if (this.column < indent) {
      this.whitespace = true;
      this.write(' '.repeat(indent - this.column));
      this.column = indent;
    }
  }

  private writeLineBreak(data = '\n'): void {
    this.whitespace = true;
    this.indention = true;
    this.column = 0;
    this.write(data);
  }

  private writeText(chars: string[], start: number, end: number): void {
    this.column += end - start;
    this.write(chars.slice(start, end).join(''));
  }

  private writeBreaks(chars: string[], start: number, end: number): void {
    for (const br of chars.slice(start, end)) {
      this.writeLineBreak(br === '\n' ? '\n' : br);
    }
  }

  protected writeSingleQuoted(text: string[], split: boolean): void {
    this.writeIndicator("'", true);
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= text.length; end += 1) {
      const ch = end < text.length ? text[end] : undefined;
      if (spaces) {
        if (ch === undefined || ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split && start !== 0 && end !== text.length) {
            this.writeIndent();
          } else {
            this.writeText(text, start, end);
          }
          start = end;
        }
      } else if (breaks) {
        if (ch === undefined || !BREAKS.includes(ch)) {
          if (text[start] === '\n') this.writeLineBreak();
          this.writeBreaks(text, start, end);
          this.writeIndent();
          start = end;
        }
      } else if (ch === undefined || ' \n\u0085\u2028\u2029'.includes(ch) || ch === "'") {
        if (start < end) {
          this.writeText(text, start, end);
          start = end;
        }
      }
      if (ch === "'") {
        this.column += 2;
        this.write("''");
        start = end + 1;
      }
      if (ch !== undefined) {
        spaces = ch === ' ';
        breaks = BREAKS.includes(ch);
      }
    }
    this.writeIndicator("'", false);
  }

  protected writeDoubleQuoted(text: string[], split: boolean): void {
    this.writeIndicator('"', true);
    let start = 0;
    for (let end = 0; end <= text.length; end += 1) {
      const ch = end < text.length ? text[end] : undefined;
      if (ch === undefined || '"\\\u0085\u2028\u2029\uFEFF'.includes(ch) || !(ch >= '\x20' && ch <= '\x7E')) {
        if (start < end) {
          this.writeText(text, start, end);
          start = end;
        }
        if (ch !== undefined) {
          const code = ch.codePointAt(0) ?? 0;
          const data =
            ESCAPES[ch] !== undefined
              ? `\\${ESCAPES[ch]}`
              : code <= 0xff
                ? `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`
                : code <= 0xffff
                  ? `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`
                  : `\\U${code.toString(16).toUpperCase().padStart(8, '0')}`;
          this.column += data.length;
          this.write(data);
          start = end + 1;
        }
      }
      if (
        end > 0 &&
        end < text.length - 1 &&
        (ch === ' ' || start >= end) &&
        this.column + (end - start) > BEST_WIDTH &&
        split
      ) {
        const data = `${text.slice(start, end).join('')}\\`;
        if (start < end) start = end;
        this.column += Array.from(data).length;
        this.write(data);
        this.writeIndent();
        this.whitespace = false;
        this.indention = false;
        if (text[start] === ' ') {
          this.column += 1;
          this.write('\\');
        }
      }
    }
    this.writeIndicator('"', false);
  }

  protected writePlain(text: string[], split: boolean, root: boolean): void {
    if (root) this.openEnded = true;
    if (text.length === 0) return;
    if (!this.whitespace) {
      this.column += 1;
      this.write(' ');
    }
    this.whitespace = false;
    this.indention = false;
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= text.length; end += 1) {
      const ch = end < text.length ? text[end] : undefined;
      if (spaces) {
        if (ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split) {
            this.writeIndent();
            this.whitespace = false;
            this.indention = false;
          } else {
            this.writeText(text, start, end);
          }
          start = end;
        }
      } else if (breaks) {
        if (ch === undefined || !BREAKS.includes(ch)) {
          if (text[start] === '\n') this.writeLineBreak();
          this.writeBreaks(text, start, end);
          this.writeIndent();
          this.whitespace = false;
          this.indention = false;
          start = end;
        }
      } else if (ch === undefined || ' \n\u0085\u2028\u2029'.includes(ch)) {
        this.writeText(text, start, end);
        start = end;
      }
      if (ch !== undefined) {
        spaces = ch === ' ';
        breaks = BREAKS.includes(ch);
      }
    }
  }
}
