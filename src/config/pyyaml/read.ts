// Loading (yaml/constructor.py, SafeConstructor): a document parsed by `yaml` with YAML 1.1 syntax
// and no schema of its own, built into Python values with PyYAML's resolution, merge keys and
// dict key equality.
import { type Document, isAlias, isMap, isScalar, isSeq, type Node, parseDocument } from 'yaml';
import { constructScalar } from './construct.js';
import { resolvePlain } from './resolve.js';
import { PyFloat, type PyMap, type PyScalar, type PyValue } from './types.js';

const TAG = 'tag:yaml.org,2002:';

/** The Python-equality identity of a dict key: 1, 1.0 and True are one key, as are 0 and False. */
function keyIdentity(key: PyScalar): string {
  if (key === null) return 'None';
  if (typeof key === 'string') return `s:${key}`;
  if (typeof key === 'boolean') return `n:${key ? 1 : 0}`;
  if (typeof key === 'number' || typeof key === 'bigint') return `n:${String(key)}`;
  if (key instanceof PyFloat) return Number.isInteger(key.value) ? `n:${BigInt(key.value)}` : `n:${key.value}`;
  return `t:${key.text}`;
}

class Constructor {
  private readonly built = new Map<Node, PyValue>();
  private readonly building = new Set<Node>();

  constructor(private readonly document: Document) {}

  node(node: unknown): PyValue {
    if (isAlias(node)) {
      return this.node(node.resolve(this.document));
    }
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) {
      throw new Error('an unsupported YAML node');
    }
    const done = this.built.get(node);
    if (done !== undefined || this.built.has(node)) return done as PyValue;
    if (this.building.has(node)) throw new Error('a recursive alias is not supported in a config');
    this.building.add(node);
    const value = isScalar(node) ? this.scalar(node) : isSeq(node) ? this.sequence(node) : this.mapping(node);
    this.building.delete(node);
    this.built.set(node, value);
    return value;
  }

  private scalar(node: { value: unknown; type?: string; tag?: string }): PyScalar {
    const text = String(node.value);
    const tag = node.tag;
    if (tag === undefined) return node.type === 'PLAIN' ? constructScalar(resolvePlain(text), text) : text;
    // The non-specific tag `!` resolves as an untagged plain scalar would, quoted or not (PyYAML's parser).
    if (tag === '!') return constructScalar(resolvePlain(text), text);
    if (tag.startsWith(TAG)) return constructScalar(tag.slice(TAG.length), text);
    throw new Error(`could not determine a constructor for the tag '${tag}'`);
  }

  private checkTag(node: { tag?: string }, kind: 'seq' | 'map'): void {
    if (node.tag !== undefined && node.tag !== '!' && node.tag !== `${TAG}${kind}`) {
      throw new Error(`could not determine a constructor for the tag '${node.tag}'`);
    }
  }

  private sequence(node: { items: unknown[]; tag?: string }): PyValue[] {
    this.checkTag(node, 'seq');
    const list: PyValue[] = [];
    this.built.set(node as Node, list);
    for (const item of node.items) list.push(this.node(item));
    return list;
  }

  /** PyYAML's flatten_mapping: merged pairs (`<<`) first, then the mapping's own. */
  private pairs(node: { items: { key: unknown; value: unknown }[] }): { key: unknown; value: unknown }[] {
    const own: { key: unknown; value: unknown }[] = [];
    const merged: { key: unknown; value: unknown }[] = [];
    for (const pair of node.items) {
      const key = pair.key;
      if (isScalar(key) && key.tag === undefined && key.type === 'PLAIN' && String(key.value) === '<<') {
        const target = isAlias(pair.value) ? pair.value.resolve(this.document) : pair.value;
        if (isMap(target)) {
          merged.push(...this.pairs(target));
        } else if (isSeq(target)) {
          const groups = target.items.map((item) => {
            const map = isAlias(item) ? item.resolve(this.document) : item;
            if (!isMap(map)) throw new Error('expected a mapping for merging');
            return this.pairs(map);
          });
          for (const group of groups.reverse()) merged.push(...group);
        } else {
          throw new Error('expected a mapping or list of mappings for merging');
        }
      } else {
        own.push(pair);
      }
    }
    return [...merged, ...own];
  }

  private mapping(node: { items: { key: unknown; value: unknown }[]; tag?: string }): PyMap {
    this.checkTag(node, 'map');
    const map: PyMap = new Map();
    this.built.set(node as Node, map);
    const keys = new Map<string, PyScalar>();
    for (const pair of this.pairs(node)) {
      const keyNode = pair.key;
      // A plain `=` key is a string to PyYAML (flatten_mapping retags it).
      const key: PyValue =
        isScalar(keyNode) && keyNode.tag === undefined && keyNode.type === 'PLAIN' && String(keyNode.value) === '='
          ? '='
          : keyNode === null || keyNode === undefined
            ? null
            : this.node(keyNode);
      if (Array.isArray(key) || key instanceof Map)
        throw new Error('found unhashable key: a list or mapping as a mapping key');
      const value = pair.value === null || pair.value === undefined ? null : this.node(pair.value);
      const identity = keyIdentity(key);
      const existing = keys.get(identity);
      if (existing === undefined && !keys.has(identity)) {
        keys.set(identity, key);
        map.set(key, value);
      } else {
        map.set(existing as PyScalar, value);
      }
    }
    return map;
  }
}

/** Reads one YAML document with the meaning PyYAML's `yaml.safe_load` gives it. Throws on a syntax error. */
export function loadPyYaml(text: string): PyValue {
  const document = parseDocument(text, { version: '1.1', schema: 'failsafe', uniqueKeys: false, merge: false });
  if (document.errors.length > 0) {
    throw new Error(document.errors.map((error) => error.message).join('; '));
  }
  if (document.contents === null) return null;
  return new Constructor(document).node(document.contents);
}
