// Dumping (yaml/serializer.py, yaml/emitter.py): block style, width 80, indent 2, allow_unicode
// False; a value met twice is anchored and aliased as the serializer does.
import { pad } from './pad.js';
import { entriesOf, representScalar, type ScalarEvent } from './represent.js';
import { analyze, chooseStyle } from './scalar-style.js';
import { PyFloat, PyTimestamp } from './types.js';
import { Writer } from './writer.js';

interface Context {
  readonly root?: boolean;
  readonly mapping?: boolean;
  readonly simpleKey?: boolean;
}

class Emitter extends Writer {
  private readonly anchors = new Map<object, string | null>();
  private readonly serialized = new Set<object>();
  private lastAnchor = 0;

  dump(value: unknown): string {
    this.anchorNode(value);
    this.node(value, { root: true });
    this.writeIndent();
    if (this.openEnded) {
      this.writeIndicator('...', true);
      this.writeIndent();
    }
    return this.out;
  }

  private anchorable(value: unknown): object | null {
    if (value instanceof Map || Array.isArray(value) || value instanceof PyTimestamp) return value as object;
    if (typeof value === 'object' && value !== null && !(value instanceof PyFloat)) return value;
    return null;
  }

  /** The serializer's anchor_node: a node met twice gets `idNNN`, numbered as met again. */
  private anchorNode(value: unknown): void {
    const node = this.anchorable(value);
    if (node === null) return;
    if (this.anchors.has(node)) {
      if (this.anchors.get(node) === null) {
        this.lastAnchor += 1;
        this.anchors.set(node, `id${pad(this.lastAnchor, 3)}`);
      }
      return;
    }
    this.anchors.set(node, null);
    if (Array.isArray(value)) {
      for (const item of value) this.anchorNode(item);
    } else if (!(value instanceof PyTimestamp)) {
      for (const [key, item] of entriesOf(node)) {
        this.anchorNode(key);
        this.anchorNode(item);
      }
    }
  }

  private node(value: unknown, context: Context): void {
    const object = this.anchorable(value);
    const anchor = object === null ? null : (this.anchors.get(object) ?? null);
    if (object !== null && this.serialized.has(object)) {
      this.writeIndicator(`*${anchor ?? ''}`, true);
      return;
    }
    if (object !== null) this.serialized.add(object);
    if (anchor !== null) this.writeIndicator(`&${anchor}`, true);
    const scalar = representScalar(value);
    if (scalar !== null) {
      this.increaseIndent(true);
      this.scalar(scalar, context);
      this.indent = this.indents.pop() ?? null;
      return;
    }
    if (Array.isArray(value)) {
      if (value.length === 0) {
        this.emptyFlow('[', ']');
        return;
      }
      this.increaseIndent(false, context.mapping === true && !this.indention);
      for (const item of value) {
        this.writeIndent();
        this.writeIndicator('-', true, false, true);
        this.node(item, {});
      }
      this.indent = this.indents.pop() ?? null;
      return;
    }
    if (typeof value === 'object' && value !== null) {
      const entries = entriesOf(value);
      if (entries.length === 0) {
        this.emptyFlow('{', '}');
        return;
      }
      this.increaseIndent(false);
      for (const [key, item] of entries) {
        this.writeIndent();
        if (this.isSimpleKey(key)) {
          this.node(key, { mapping: true, simpleKey: true });
          this.writeIndicator(':', false);
          this.node(item, { mapping: true });
        } else {
          this.writeIndicator('?', true, false, true);
          this.node(key, { mapping: true });
          this.writeIndent();
          this.writeIndicator(':', true, false, true);
          this.node(item, { mapping: true });
        }
      }
      this.indent = this.indents.pop() ?? null;
      return;
    }
    throw new Error(`cannot represent an object: ${String(value)}`);
  }

  private isSimpleKey(key: unknown): boolean {
    const object = this.anchorable(key);
    if (object !== null && this.serialized.has(object)) return true; // an alias
    let length = 0;
    const anchor = object === null ? null : (this.anchors.get(object) ?? null);
    if (anchor !== null) length += anchor.length;
    const scalar = representScalar(key);
    if (scalar === null) {
      const empty = Array.isArray(key) ? key.length === 0 : entriesOf(key as object).length === 0;
      return length + 5 < 128 && empty; // `!!seq` / `!!map`
    }
    length += 2 + scalar.tag.length; // the prepared tag, `!!str`
    const analysis = analyze(scalar.value);
    length += analysis.chars.length;
    return length < 128 && !analysis.empty && !analysis.multiline;
  }

  private emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true);
    this.increaseIndent(true);
    this.indent = this.indents.pop() ?? null;
    this.writeIndicator(close, false);
  }

  private scalar(event: ScalarEvent, context: Context): void {
    const analysis = analyze(event.value);
    const simpleKey = context.simpleKey === true;
    const style = chooseStyle(event.plainImplicit, analysis, simpleKey);
    const split = !simpleKey;
    if (style === '"') this.writeDoubleQuoted(analysis.chars, split);
    else if (style === "'") this.writeSingleQuoted(analysis.chars, split);
    else this.writePlain(analysis.chars, split, context.root === true);
  }
}

/**
 * The text `yaml.safe_dump(value, sort_keys=False)` writes. Maps (Map or plain object) keep their
 * order; a JS number that is whole is an int, any other a float; PyFloat is always a float.
 */
export function dumpPyYaml(value: unknown): string {
  return new Emitter().dump(value);
}
