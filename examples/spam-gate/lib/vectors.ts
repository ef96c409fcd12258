import type { Message } from './corpus.js';
import { mailText } from './email.js';
import { hashVector, type FeatureSettings, type SparseVector } from './features.js';
import { mailTokens } from './tokens.js';

/**
 * Feature vectors of messages, remembered per feature settings: a batch of checkpoints of one
 * run (or an ensemble of runs sharing settings) featurizes each mail once.
 */
export class Featurizer {
  private readonly cache = new Map<string, SparseVector>();

  vectors(messages: readonly Message[], settings: FeatureSettings): SparseVector[] {
    const prefix = `${settings.ngram}|${settings.max_body_chars}|${settings.hash_dimension}|`;
    return messages.map((message) => {
      const key = prefix + message.id;
      let vector = this.cache.get(key);
      if (vector === undefined) {
        vector = vectorOf(message.text, settings);
        this.cache.set(key, vector);
      }
      return vector;
    });
  }
}

/** One raw mail as the model sees it (the packaged scorer uses this too). */
export function vectorOf(raw: string, settings: FeatureSettings): SparseVector {
  return hashVector(mailTokens(mailText(raw, settings.max_body_chars), settings.ngram), settings.hash_dimension);
}
