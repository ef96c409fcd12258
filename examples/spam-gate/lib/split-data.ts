import { loadCorpus, messagesFor, type Message } from './corpus.js';
import { roleIds, type Split } from './split.js';

/** A split's messages by role; the corpus is read on first use, once per process. */
export class SplitData {
  private corpus: Map<string, Message> | undefined;

  constructor(readonly split: Split) {}

  ids(role: string): readonly string[] {
    return roleIds(this.split, role);
  }

  messages(role: string): Message[] {
    this.corpus ??= loadCorpus(this.split.dataset);
    return messagesFor(this.corpus, this.ids(role));
  }
}
