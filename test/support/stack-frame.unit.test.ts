// The check that a failing command printed one clear error and no stack trace: it must see a real
// Node stack and must not take wrapped help text for one.
import { describe, expect, it } from 'vitest';
import { STACK_FRAME } from '../helpers/files-and-errors.js';

describe('STACK_FRAME', () => {
  it('finds the frames of a stack Node printed', () => {
    expect(new Error('boom').stack).toMatch(STACK_FRAME);
    expect('Error: x\n    at file:///a/b.js:3:9').toMatch(STACK_FRAME);
    expect('Error: x\n    at async main (/a/b.js:10:2)').toMatch(STACK_FRAME);
  });

  it('passes help text whose wrapped line starts with "at"', () => {
    const help = [
      '  unpause <loop-id> <run-id>  go on with a paused training, from its newest',
      '                              at no cost in attempts',
    ];
    expect(help.join('\n')).not.toMatch(STACK_FRAME);
  });
});
