// Provisions the Chromium the UI test drives (test/ui/chromium.ts: Debian's /usr/bin/chromium,
// through playwright-core, no browser download), as `npm run provision` does the Temporal CLI.
// Missing: installs Debian's package (`apt-get`, as root or through non-interactive sudo); when
// that cannot be done it says how to install it and exits 0, and the UI test reports the same.
import { execFileSync } from 'node:child_process';
import console from 'node:console';
import { existsSync } from 'node:fs';
import process from 'node:process';

const CHROMIUM = '/usr/bin/chromium';
const INSTALL = ['install', '-y', '--no-install-recommends', 'chromium'];
const log = (line) => console.error(`[provision] ${line}`);

/** Runs a command quietly; true when it exits 0. */
function succeeds(command, args, options = {}) {
  try {
    execFileSync(command, args, { stdio: 'ignore', ...options });
    return true;
  } catch {
    return false;
  }
}

/** How to run apt-get here: directly as root, through sudo when it needs no password, else null. */
function aptGet() {
  if (process.platform !== 'linux' || !succeeds('sh', ['-c', 'command -v apt-get'])) return null;
  if (process.getuid?.() === 0) return ['apt-get'];
  return succeeds('sudo', ['-n', 'true']) ? ['sudo', '-n', 'apt-get'] : null;
}

if (!existsSync(CHROMIUM)) {
  const apt = aptGet();
  let installed = false;
  if (apt !== null) {
    log(`no Chromium at ${CHROMIUM}: installing Debian's package (${[...apt, ...INSTALL].join(' ')})...`);
    const [command, ...prefix] = apt;
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const run = (args) => succeeds(command, [...prefix, ...args], { stdio: ['ignore', 'ignore', 'inherit'], env });
    // A fresh machine has no package lists yet; an install that fails for an old list gets a new one.
    installed = (run(INSTALL) || (run(['update']) && run(INSTALL))) && existsSync(CHROMIUM);
  }
  if (installed) log(`installed Chromium at ${CHROMIUM}`);
  else {
    log(
      `no Chromium at ${CHROMIUM}, and it could not be installed here${apt === null ? ' (needs root or password-less sudo, and apt-get)' : ''}.`,
    );
    log("Install Debian's package: sudo apt-get install -y --no-install-recommends chromium");
    log('Every test but the UI test runs without it; the UI test fails saying Chromium is missing.');
  }
}
