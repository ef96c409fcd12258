import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { BrowserContext, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { launchChromium, SCREENSHOTS } from './chromium.js';

// The loop's live page in the Temporal Web UI (the dev server's, in a real headless Chromium):
// the generation's current details (champion and its counts, lanes, why it idles), the children's
// static summaries and details and the activities' summaries in the history. Screenshots go to
// test/ui/__screenshots__/.

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A user-metadata payload (summary or details) as text. */
const text = (payload: temporal.api.common.v1.IPayload | null | undefined): string | undefined =>
  payload ? defaultPayloadConverter.fromPayload<string>(payload) : undefined;

describe('the live page of a loop in the Web UI', () => {
  let harness: LoopHarness;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;

  beforeAll(async () => {
    harness = await createLoopHarness({ candidates: [{ name: 'base' }], lanes: 1 });
    browser = await launchChromium();
    context = browser.context;
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.dispose();
  });

  /** The workflow's page on one of its tabs (`timeline`, `user-metadata`, ...). */
  async function openTab(workflowId: string, tab: string): Promise<Page> {
    const handle = harness.client.workflow.getHandle(workflowId);
    const { runId } = await handle.describe();
    const page = await context.newPage();
    const { uiUrl, namespace } = harness.server;
    await page.goto(`${uiUrl}/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}/${runId}/${tab}`);
    return page;
  }

  /** The rendered Markdown of one of the User Metadata tab's panels (the UI draws it in an iframe). */
  async function panelText(frame: FrameLocator): Promise<string> {
    const body = frame.locator('body');
    await body.waitFor({ timeout: 30_000 });
    return (await body.innerText()).replace(/\s+/g, ' ');
  }

  async function historyOf(workflowId: string): Promise<HistoryEvent[]> {
    const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
    return history.events ?? [];
  }

  it("shows the champion's counts in the generation's current details, and the loop's story in its history", async () => {
    const loopId = 'ui-live';
    const workflowId = loopWorkflowId(loopId);
    await harness.startWith(loopId);
    await harness.waitFor(loopId, (view) => view.champion !== null, 120_000);
    // Only a student whose teacher file never appears is left: the loop finishes its run and
    // idles, so the champion stays put while the page is read.
    await harness.writeCandidates([{ name: 'pupil', overrides: { gate_soft_targets: 'teachers/given.jsonl' } }]);
    const view = await harness.waitFor(loopId, (v) => v.idle && v.in_flight.length === 0, 120_000);
    const champion = view.champion;
    const counts = champion?.result;
    expect(counts).toBeTruthy();
    if (!champion || !counts) return;

    // The generation's page, User Metadata tab: current details as the Web UI renders them.
    const page = await openTab(workflowId, 'user-metadata');
    await page.getByRole('heading', { name: 'Current Details' }).waitFor({ timeout: 30_000 });
    const details = page.frameLocator('iframe#user-metadata-current-details');
    await details.getByText('Champion:').waitFor({ timeout: 30_000 });
    const shown = await panelText(details);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'web-ui-current-details.png'), fullPage: true });
    expect(shown).toContain(`Champion: ${champion.run_id} ${champion.checkpoint_name}`);
    expect(shown).toContain(
      `Counts: Fail→Pass ${counts.fail_to_pass_count} of ${counts.fail_count} · Pass→Fail ${counts.pass_to_fail_count} of ${counts.pass_count}`,
    );
    expect(shown).toContain(`Pareto front: ${view.pareto_set.length} member`);
    expect(shown).toContain(`next reserve check: in ${200 - view.tests_since_reserve_check} test evals (0 of 3 done)`);
    expect(shown).toContain('Now: Idle: no active candidate; waiting for');
    expect(shown).toContain(`${harness.lanes[0]} 0 of 1 busy: free`);
    await page.close();

    // Its history, Timeline tab: the children's static summaries and the activities' summaries.
    const timeline = await openTab(workflowId, 'timeline');
    const firstRun = `train + evaluate champ-g001-r0001-base on ${harness.lanes[0]}`;
    await timeline.getByText(firstRun).first().waitFor({ timeout: 30_000 });
    await expect(
      timeline
        .getByText(/read the candidates file/)
        .first()
        .isVisible(),
    ).resolves.toBe(true);
    await expect(
      timeline
        .getByText(/build the split of generation 1/)
        .first()
        .isVisible(),
    ).resolves.toBe(true);
    await timeline.screenshot({ path: path.join(SCREENSHOTS, 'web-ui-story.png'), fullPage: true });
    await timeline.close();

    // The same metadata as the server holds it: on every activity and child the generation started.
    const events = await historyOf(workflowId);
    const scheduled = events.filter((event) => event.activityTaskScheduledEventAttributes);
    const children = events.filter((event) => event.startChildWorkflowExecutionInitiatedEventAttributes);
    expect(scheduled.length).toBeGreaterThan(0);
    expect(children.length).toBeGreaterThan(0);
    for (const event of scheduled) expect(text(event.userMetadata?.summary)).toBeTruthy();
    for (const event of children) {
      expect(text(event.userMetadata?.summary)).toMatch(/^train \+ evaluate champ-g001-r\d{4}-base on /);
      expect(text(event.userMetadata?.details)).toMatch(/^\*\*Training run\*\* `champ-g001-r\d{4}-base`/);
    }

    // A training run's own page: its static details, and its activities' summaries in its history.
    const childId = children[0]?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? '';
    const child = await openTab(childId, 'user-metadata');
    const childDetails = child.frameLocator('iframe#user-metadata-details');
    await childDetails.getByText('Training run').waitFor({ timeout: 30_000 });
    const childShown = await panelText(childDetails);
    expect(childShown).toContain('Training run champ-g001-r0001-base');
    expect(childShown).toContain('candidate base: base config');
    expect(childShown).toContain('Train, then score every checkpoint on the test role.');
    await child.screenshot({ path: path.join(SCREENSHOTS, 'web-ui-child-details.png'), fullPage: true });
    await child.close();
    const childSummaries = (await historyOf(childId))
      .filter((event) => event.activityTaskScheduledEventAttributes)
      .map((event) => text(event.userMetadata?.summary));
    expect(childSummaries).toEqual(
      expect.arrayContaining([
        'train champ-g001-r0001-base',
        expect.stringMatching(/^score \d+ checkpoints? of champ-g001-r0001-base on test$/),
      ]),
    );
  });
});
