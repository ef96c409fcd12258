import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium; `.ci/run` installs it when missing (no browser download). */
const CHROMIUM = '/usr/bin/chromium';

/** Where UI tests leave their screenshots for a person to look at (ignored by git). */
export const SCREENSHOTS = fileURLToPath(new URL('./__screenshots__/', import.meta.url));

/** A headless Chromium with a fresh profile, closed and removed by `close`. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install it with 'apt-get install -y --no-install-recommends chromium' (.ci/run does)`,
    );
  }
  await mkdir(SCREENSHOTS, { recursive: true });
  const profile = await mkdtemp(path.join(tmpdir(), 'champion-loop-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
