// Configuration: loop.yaml and candidates.yaml. Workflow code imports the pure files
// (lanes, duration, candidate) directly: the loaders here use node:fs.
export * from './candidate.js';
export * from './candidates.js';
export * from './duration.js';
export * from './errors.js';
export * from './lanes.js';
export * from './load-candidates.js';
export * from './load-loop-config.js';
export * from './loop-config.js';
export * from './problems.js';
