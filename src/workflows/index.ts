// Every workflow the orchestrator worker runs; the bundle is built from this file.
export { generation } from './generation.js';
export { laneProbe } from './lane-probe.js';
export { packaging } from './packaging.js';
export { reserveCheck } from './reserve-check.js';
export { teacherBuild } from './teacher-build.js';
export { trainingRun } from './training-run.js';
