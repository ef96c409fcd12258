import { existsSync } from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import Long from 'long';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorChain, errorText } from '../../src/client/error-words.js';
import { searchAttributeProblem } from '../../src/client/namespace-check.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { championLoopAt } from './champion-loop-cli.js';

// Issue 28, item 2: a namespace an operator made without the loop's search attributes is named,
// with the commands that register them (one --name per call), by `start` and by every worker,
// before anything is started; and every CLI error prints the causes it carries.

const ALL = new Map([
  ['LoopId', 'Keyword'],
  ['LoopKind', 'Keyword'],
  ['Candidate', 'Keyword'],
  ['Champion', 'Keyword'],
  ['Generation', 'Int'],
  ['Round', 'Int'],
]);

describe('searchAttributeProblem', () => {
  it('is null when the namespace has every search attribute with its type', () => {
    expect(searchAttributeProblem('ns', ALL)).toBeNull();
  });

  it('names each missing one with its own command, and a mistyped one with what to do', () => {
    const registered = new Map([...ALL].filter(([name]) => name !== 'Round' && name !== 'LoopId'));
    registered.set('Generation', 'Keyword');
    const problem = searchAttributeProblem('prod', registered) ?? '';
    expect(problem).toContain("namespace 'prod' lacks the loop's search attributes LoopId, Round.");
    expect(problem).toContain(
      'temporal operator search-attribute create --namespace prod --name LoopId --type Keyword',
    );
    expect(problem).toContain('temporal operator search-attribute create --namespace prod --name Round --type Int');
    expect(problem).toContain('has the search attribute Generation as Keyword, the loop needs Int');
  });
});

describe('errorText', () => {
  it('prints the message, then each cause that says something the message does not', () => {
    const error = new Error('Failed to start Workflow', {
      cause: new Error('3 INVALID_ARGUMENT: Namespace x has no mapping defined for search attribute LoopId', {
        cause: new Error('Failed to start Workflow'),
      }),
    });
    expect(errorChain(error)).toHaveLength(2);
    expect(errorText(error)).toBe(
      'champion-loop: Failed to start Workflow\n  cause: 3 INVALID_ARGUMENT: Namespace x has no mapping defined for search attribute LoopId',
    );
    expect(errorText(new Error('plain'))).toBe('champion-loop: plain');
  });
});

describe('a namespace made without the loop search attributes', () => {
  let harness: LoopHarness;
  const bare = 'bare-namespace';

  beforeAll(async () => {
    harness = await createLoopHarness({ candidates: [{ name: 'a' }], lanes: 1 });
    await harness.client.workflowService.registerNamespace({
      namespace: bare,
      workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(30 * 86_400) },
    });
    // One of the six registered, as an operator who passed several --name flags to one call would have.
    await harness.client.connection.operatorService.addSearchAttributes({
      namespace: bare,
      searchAttributes: { LoopId: proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    });
  }, 120_000);

  afterAll(async () => {
    await harness?.dispose();
  });

  const at = () => ({ address: harness.server.address, namespace: bare });

  it('start names the five missing and their commands, and starts nothing', async () => {
    const result = await championLoopAt(at(), ['start', 'on-bare', '--config', harness.configFile]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      "champion-loop: namespace 'bare-namespace' lacks the loop's search attributes LoopKind, Candidate, Champion, Generation, Round.",
    );
    expect(result.stderr).toContain(
      `temporal operator search-attribute create --namespace ${bare} --name Generation --type Int`,
    );
    expect(result.stderr).not.toContain('--name LoopId');
    // Nothing touched: no state dir made for the loop.
    expect(existsSync(path.join(harness.dir, 'loops', 'on-bare'))).toBe(false);
  });

  it('a worker says the same before it polls, and exits', async () => {
    const result = await championLoopAt(at(), ['worker', 'orchestrator'], { timeout: 60_000 });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      "lacks the loop's search attributes LoopKind, Candidate, Champion, Generation, Round",
    );
    expect(result.stdout).not.toContain('connected to');
  });
});
