// PyYAML-compatible YAML for job configs: reads with the meaning `yaml.safe_load` gives a file
// (YAML 1.1 resolution) and writes the bytes `yaml.safe_dump(value, sort_keys=False)` writes
// (block style, width 80, indent 2, non-ASCII escaped), so a Python trainer reads the same values
// and `config_sha256` equals the seed's. Pure: no I/O. Ported from PyYAML 6's resolver,
// constructor, representer, serializer and emitter, for the data JSON-like configs hold.

// The public API; each job lives in a module of its own beside this one.
export { dumpPyYaml } from './emit.js';
export { fromJsonSafe, toJsonSafe } from './json.js';
export { loadPyYaml } from './read.js';
export { PyFloat, type PyMap, PyTimestamp, type PyValue } from './types.js';
