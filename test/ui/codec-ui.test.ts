import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { AesGcmCodec } from '../../src/codec/aes-gcm-codec.js';
import { codecKeysFrom, type CodecKeys } from '../../src/codec/codec-keys.js';
import { codecServer } from '../../src/codec/codec-server.js';
import { loopDataConverter } from '../../src/codec/data-converter.js';
import { startLoop } from '../../src/client/loop-start.js';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { tempDir } from '../helpers/files-and-errors.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { launchChromium, SCREENSHOTS } from './chromium.js';

// The Web UI of a dev server started with ui_codec_endpoint (temporal-dev.yaml) pointed at the
// codec server: a loop whose history is encrypted shows its input decoded, in a real Chromium.

const ENV = { CHAMPION_LOOP_CODEC_KEYS: `ui:${randomBytes(32).toString('base64')}` };
const MARKER = 'data-sealed-7f3a';

describe('the Web UI through the codec server', () => {
  let server: TestServer;
  let connection: Connection;
  let codec: ReturnType<typeof codecServer>;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  const origins: string[] = [];
  const decodes: string[] = [];

  beforeAll(async () => {
    const keys = codecKeysFrom(ENV) as CodecKeys;
    codec = codecServer({ codec: new AesGcmCodec(keys), origins });
    codec.on('request', (request: { method?: string; url?: string }) => {
      if (request.method === 'POST') decodes.push(request.url ?? '');
    });
    await new Promise<void>((resolve) => codec.listen(0, '127.0.0.1', resolve));
    const { port } = codec.address() as AddressInfo;
    server = await startTestServer({ uiCodecEndpoint: `http://127.0.0.1:${port}` });
    // The UI's page calls the codec server from its own origin.
    origins.push(server.uiUrl);
    connection = await Connection.connect({ address: server.address });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await connection?.close();
    await server?.dispose();
    await new Promise((resolve) => codec?.close(resolve));
  });

  it("shows an encrypted loop's input decoded", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, MARKER));
    await writeFile(path.join(dir, 'candidates.yaml'), stringify({ candidates: [{ name: 'base', overrides: {} }] }));
    await writeFile(
      path.join(dir, 'loop.yaml'),
      stringify({
        data_root: MARKER,
        candidates: 'candidates.yaml',
        lanes: [{ host: 'ui', device: 0 }],
        commands: { train: ['train'], evaluate: ['evaluate'], split_generate: ['split'], split_carve: ['carve'] },
      }),
    );
    const config = await loadLoopConfig(path.join(dir, 'loop.yaml'));
    const client = new Client({ connection, namespace: server.namespace, dataConverter: loopDataConverter(ENV) });
    expect((await startLoop(client, 'ui-sealed', config)).kind).toBe('started');
    const workflowId = loopWorkflowId('ui-sealed');
    const { runId } = await client.workflow.getHandle(workflowId).describe();

    // As the server holds it, the input is sealed: the marker is not in it.
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: server.namespace,
      execution: { workflowId, runId },
      maximumPageSize: 1,
    });
    const input = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(Buffer.from(input?.metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
    expect(Buffer.from(input?.data ?? []).toString('latin1')).not.toContain(MARKER);

    const page = await browser.context.newPage();
    await page.goto(
      `${server.uiUrl}/namespaces/${server.namespace}/workflows/${encodeURIComponent(workflowId)}/${runId}/history`,
    );
    await page.getByText(MARKER).first().waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'web-ui-codec.png') });
    // The page asked the codec server to decode (the UI adds a query string of its own).
    expect(decodes.some((url) => new URL(url, 'http://codec').pathname === '/decode')).toBe(true);
    await page.close();
  });
});
