// The subprocess contract: what the training stack writes and the loop reads (docs/contract.md).
export * from './errors.js';
export * from './jobs.js';
export * from './json-text.js';
export * from './manifest.js';
export * from './pareto.js';
export * from './read.js';
export * from './report.js';
export * from './scores.js';
export * from './selection.js';
export * from './validation-epoch.js';
