#!/usr/bin/env node
// The champion-loop command: runs the TypeScript CLI through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../src/client/main.ts');
