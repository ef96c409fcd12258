import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startLoop } from '../../src/client/loop-start.js';
import { renderReport } from '../../src/client/report/render-report.js';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import { tempDir } from '../helpers/files-and-errors.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { seedLedgerRows } from '../client/report/seed-ledger.js';
import { launchChromium, SCREENSHOTS } from './chromium.js';

// What a person sees: the Temporal Web UI of the dev server, filtered to one loop, and the
// HTML report, both in a real headless Chromium. Screenshots go to test/ui/__screenshots__/.

describe('what people see', () => {
  let server: TestServer;
  let connection: Connection;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;

  beforeAll(async () => {
    server = await startTestServer();
    connection = await Connection.connect({ address: server.address });
    browser = await launchChromium();
    context = browser.context;
  });

  afterAll(async () => {
    await browser?.close();
    await connection?.close();
    await server?.dispose();
  });

  /** Workflow ids the UI lists on the page (the links of the Workflow ID column). */
  async function listedLoops(page: Awaited<ReturnType<BrowserContext['newPage']>>): Promise<string[]> {
    return page
      .getByRole('link', { name: /^champion-loop\// })
      .allTextContents()
      .then((texts) => texts.map((text) => text.trim()).sort());
  }

  /** The page's headings as text (the workflow list's heading counts what the query matched). */
  async function headings(page: Awaited<ReturnType<BrowserContext['newPage']>>): Promise<string[]> {
    return (await page.getByRole('heading').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
  }

  it("the Web UI, filtered by LoopId, lists that loop's generation workflow and not another loop's", async () => {
    // Two loops started as `champion-loop start` starts them; no worker is needed for them to be listed.
    const dir = await tempDir();
    await mkdir(path.join(dir, 'data'));
    await writeFile(path.join(dir, 'base.yaml'), 'fixture_epochs: 2\n');
    await writeFile(
      path.join(dir, 'candidates.yaml'),
      stringify({ candidates: [{ name: 'base', base_config: 'base.yaml', overrides: {} }] }),
    );
    await writeFile(
      path.join(dir, 'loop.yaml'),
      stringify({
        data_root: 'data',
        candidates: 'candidates.yaml',
        lanes: [{ host: 'ui', device: 0 }],
        commands: { train: ['train'], evaluate: ['evaluate'], split_generate: ['split'], split_carve: ['carve'] },
      }),
    );
    const config = await loadLoopConfig(path.join(dir, 'loop.yaml'));
    const client = new Client({ connection, namespace: server.namespace });
    for (const loopId of ['ui-alpha', 'ui-beta'])
      expect((await startLoop(client, loopId, config)).kind).toBe('started');

    const page = await context.newPage();
    const workflows = `${server.uiUrl}/namespaces/${server.namespace}/workflows`;
    await page.goto(workflows);
    await page.getByRole('link', { name: 'champion-loop/ui-beta', exact: true }).waitFor({ timeout: 30_000 });
    await expect.poll(() => headings(page), { timeout: 30_000 }).toContain('2 Workflows');
    expect(await listedLoops(page)).toEqual(['champion-loop/ui-alpha', 'champion-loop/ui-beta']);

    await page.goto(`${workflows}?query=${encodeURIComponent('LoopId="ui-alpha"')}`);
    await page.getByRole('link', { name: 'champion-loop/ui-alpha', exact: true }).waitFor({ timeout: 30_000 });
    // The count heading settles once the filtered list has loaded.
    await expect.poll(() => headings(page), { timeout: 30_000 }).toContain('1 Workflow');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'web-ui-loop-filter.png') });
    expect(await listedLoops(page)).toEqual(['champion-loop/ui-alpha']);
    await expect(page.getByText('LoopId = "ui-alpha"').first().isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('the HTML report opens offline and shows the plotted Pareto front', async () => {
    const file = path.join(await tempDir(), 'report.html');
    await writeFile(
      file,
      renderReport(seedLedgerRows(), { loopId: 'gate-2026', generatedAt: new Date('2026-01-06T00:00:00Z') }),
    );
    const page = await context.newPage();
    const fetched: string[] = [];
    // Anything but the file itself would be a request to the network: refuse it and remember it.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      fetched.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(file).href);
    const plots = page.locator('svg.front-plot');
    expect(await plots.count()).toBe(2);
    expect(await page.locator('svg.front-plot circle.point').count()).toBe(7);
    expect(await page.locator('svg.front-plot circle.front-member').count()).toBe(3);
    expect(await page.locator('svg.front-plot path.champion').count()).toBe(2);
    const box = await plots.first().boundingBox();
    expect(box?.width).toBeGreaterThan(400);
    expect(box?.height).toBeGreaterThan(200);
    // Every point is drawn inside its plot.
    const frame = await plots.first().boundingBox();
    for (const point of await plots.first().locator('circle.point').all()) {
      const at = await point.boundingBox();
      expect(
        at &&
          frame &&
          at.width > 0 &&
          at.x >= frame.x &&
          at.x + at.width <= frame.x + frame.width &&
          at.y >= frame.y &&
          at.y + at.height <= frame.y + frame.height,
      ).toBe(true);
    }
    await plots.first().screenshot({ path: path.join(SCREENSHOTS, 'report-front.png') });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'report.png'), fullPage: true });
    expect(fetched).toEqual([]);
    await page.close();
  });
});
