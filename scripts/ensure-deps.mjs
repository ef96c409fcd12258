// Installs the locked dependencies when node_modules is missing or older than package-lock.json,
// so `npm test` and `npm run demo` work on a fresh clone without a separate `npm install`.
import { execFileSync } from 'node:child_process';
import console from 'node:console';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync('package-lock.json').mtimeMs;
if (stale) {
  console.error('[setup] installing dependencies (npm ci)...');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
}
