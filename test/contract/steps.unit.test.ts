import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { laneActivities, orchestratorActivities, packageActivities } from '../../src/activities/index.js';
import { DEFAULT_COMMANDS, parseLoopConfig } from '../../src/config/loop-config.js';
import { COMMAND_NOT_FOUND, CONTRACT_ERROR } from '../../src/contract/failures.js';
import { ORCHESTRATOR_QUEUE, PACKAGE_QUEUE } from '../../src/contract/task-queues.js';
import { STEPS, stepLog, stepsOf, type LaneStepName, type Step, type StepName } from '../../src/contract/steps.js';
import { workerSteps } from '../../src/contract/worker-steps.js';
import { registryActivities } from '../../src/registry/index.js';
import { orchestratorWorkerActivities } from '../../src/workers/orchestrator-activities.js';
import { localStepOptions, stepOptions } from '../../src/workflows/step-options.js';

const config = parseLoopConfig(
  ['data_root: data', 'candidates: candidates.yaml', 'lanes:', '  - {host: gpu-a, device: 0}', ''].join('\n'),
  'loop.yaml',
);

const entries = Object.entries(STEPS) as [StepName, Step][];

describe('the catalogue of steps', () => {
  it('holds every activity each worker registers, and nothing a worker does not', () => {
    // The orchestrator's client activities only close over the client: none is called here.
    const orchestrator = orchestratorWorkerActivities({} as Client);
    expect(Object.keys(orchestrator).sort()).toEqual([...stepsOf('orchestrator')].sort());
    expect(Object.keys({ ...laneActivities, probeLane: null }).sort()).toEqual([...stepsOf('lane')].sort());
    expect(Object.keys({ ...packageActivities, ...registryActivities }).sort()).toEqual([...stepsOf('package')].sort());
    const registered = new Set([...stepsOf('orchestrator'), ...stepsOf('lane'), ...stepsOf('package')]);
    expect([...registered].sort()).toEqual(Object.keys(STEPS).sort());
    expect(Object.keys(orchestratorActivities).every((name) => registered.has(name as StepName))).toBe(true);
  });

  it("refuses a worker's activities that miss a step or hold one it does not list", () => {
    const { packageChampion } = packageActivities;
    expect(() => workerSteps('package', { packageChampion } as never)).toThrow(/missing registerChampion/);
    expect(() =>
      workerSteps('package', {
        ...packageActivities,
        ...registryActivities,
        trainRun: laneActivities.trainRun,
      } as never),
    ).toThrow(/not in it trainRun/);
  });

  it('reads every lane step limit from a key the loop config has', () => {
    const laneSteps = entries
      .map(([name]) => name)
      .filter((name): name is LaneStepName => STEPS[name].queue === 'lane');
    expect(laneSteps).toEqual(['trainRun', 'evaluateRun', 'evaluateReserve', 'buildTeacher']);
    for (const name of laneSteps) {
      const { startToClose, attempts } = STEPS[name].limits;
      expect(config.timeouts, name).toHaveProperty(startToClose.timeouts);
      expect(config.retries, name).toHaveProperty(attempts.retries);
      expect(STEPS[name].kind, name).toBeDefined();
    }
  });

  it('reads every limit it takes from loop.yaml from a key the loop config has, and runs every command loop.yaml names', () => {
    for (const [name, step] of entries) {
      const { startToClose, heartbeat, scheduleToStart, attempts } = step.limits;
      for (const limit of [startToClose, heartbeat, scheduleToStart])
        if (typeof limit === 'object') expect(config.timeouts, name).toHaveProperty(limit.timeouts);
      if (typeof attempts === 'object') expect(config.retries, name).toHaveProperty(attempts.retries);
    }
    const run = new Set(entries.flatMap(([, step]) => step.commands));
    expect([...run].sort()).toEqual(Object.keys(DEFAULT_COMMANDS).sort());
  });

  it('names every log apart, and the evaluator logs of a reserve check as the evaluation logs on the reserve role', () => {
    const templates = entries.flatMap(([, step]) => Object.values(step.logs));
    expect(new Set(templates).size).toBe(templates.length);
    const sample = { runId: 'r', role: 'test', checkpoint: 'c', generation: '001', batch: '0000', epoch: '-0001' };
    const names = templates.map((template) => stepLog(template, sample));
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[\w.-]+\.log$/);
    const reserve = { runId: 'r', checkpoint: 'c', role: 'reserve' };
    expect(stepLog(STEPS.evaluateRun.logs.checkpoint, reserve)).toBe(
      stepLog(STEPS.evaluateReserve.logs.checkpoint, reserve),
    );
    expect(stepLog(STEPS.evaluateRun.logs.batch, reserve)).toBe(stepLog(STEPS.evaluateReserve.logs.batch, reserve));
  });

  it('gives each step the activity options its workflows scheduled it with before the catalogue', () => {
    const loop = { loop: config };
    const cpu = {
      taskQueue: ORCHESTRATOR_QUEUE,
      startToCloseTimeout: '5 minutes',
      heartbeatTimeout: '10 seconds',
      retry: { maximumAttempts: 5 },
    };
    for (const name of ['readCandidates', 'writeEnsembleManifest', 'missingFiles'] as const)
      expect(stepOptions(name, loop), name).toEqual(cpu);
    for (const name of ['requestPackaging', 'stopPackaging', 'childOutcome'] as const)
      expect(stepOptions(name, loop), name).toEqual(cpu);
    expect(stepOptions('waitForChange', loop)).toEqual({
      taskQueue: ORCHESTRATOR_QUEUE,
      startToCloseTimeout: '70 minutes',
      heartbeatTimeout: '1 minute',
      retry: { maximumAttempts: 3 },
    });
    expect(stepOptions('buildSplit', loop)).toEqual({
      taskQueue: ORCHESTRATOR_QUEUE,
      startToCloseTimeout: config.timeouts.split,
      heartbeatTimeout: config.timeouts.heartbeat,
      retry: { maximumAttempts: 2, nonRetryableErrorTypes: [COMMAND_NOT_FOUND] },
    });
    expect(localStepOptions('prepareRun')).toEqual({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } });
    expect(stepOptions('trainRun', { ...loop, queue: 'lane-q' })).toEqual({
      taskQueue: 'lane-q',
      scheduleToStartTimeout: config.timeouts.schedule_to_start,
      startToCloseTimeout: config.timeouts.train,
      heartbeatTimeout: config.timeouts.heartbeat,
      retry: { maximumAttempts: config.retries.train, nonRetryableErrorTypes: [COMMAND_NOT_FOUND, CONTRACT_ERROR] },
    });
    for (const name of ['evaluateRun', 'evaluateReserve', 'buildTeacher'] as const)
      expect(stepOptions(name, { ...loop, queue: 'lane-q' }).startToCloseTimeout, name).toBe(config.timeouts.evaluate);
    expect(stepOptions('packageChampion', loop)).toEqual({
      taskQueue: PACKAGE_QUEUE,
      startToCloseTimeout: config.timeouts.package,
      heartbeatTimeout: config.timeouts.heartbeat,
      retry: { maximumAttempts: config.retries.package },
    });
    expect(stepOptions('registerChampion')).toEqual({
      taskQueue: PACKAGE_QUEUE,
      startToCloseTimeout: '2m',
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
    });
    expect(stepOptions('probeLane', { queue: 'q' })).toEqual({
      taskQueue: 'q',
      scheduleToStartTimeout: '1 minute',
      startToCloseTimeout: '2 minutes',
      retry: { maximumAttempts: 1 },
    });
  });

  it('asks for the queue of a lane step or a probe, and for the loop of a limit loop.yaml sets', () => {
    expect(() => stepOptions('trainRun', { loop: config })).toThrow(/queue/);
    expect(() => stepOptions('packageChampion')).toThrow(/timeouts.package/);
  });
});
