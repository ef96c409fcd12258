import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { championLoop } from '../client/champion-loop-cli.js';

// `champion-loop codec-server` as the Web UI and `temporal --codec-endpoint` call it: a real process
// on a real port, spoken to over HTTP.

const BIN = fileURLToPath(new URL('../../bin/champion-loop.js', import.meta.url));
const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const UI = 'http://localhost:8233';
let server: ResultPromise | undefined;
let base = '';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  server = execa(process.execPath, [BIN, 'codec-server', '--port', '0'], {
    env: { CHAMPION_LOOP_CODEC_KEYS: KEYS },
    reject: false,
  });
  base = await new Promise<string>((resolve, reject) => {
    server?.stdout?.on('data', (chunk: Buffer) => {
      const found = /codec server at (http:\/\/\S+)/.exec(chunk.toString());
      if (found?.[1]) resolve(found[1]);
    });
    void server?.then((result) => reject(new Error(`codec-server exited: ${String(result.stderr)}`)));
  });
}, 60_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  await server;
});

describe('champion-loop codec-server', () => {
  it('encodes payloads it is sent and decodes them back, in the JSON form the Web UI uses', async () => {
    const plain = { metadata: { encoding: b64('json/plain') }, data: b64('{"candidate":"wide-secret"}') };
    const encoded = (await (await post('/encode', { payloads: [plain] })).json()) as { payloads: (typeof plain)[] };
    const sealed = encoded.payloads[0];
    expect(Buffer.from(sealed?.metadata.encoding ?? '', 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(sealed?.data ?? '', 'base64').toString('latin1')).not.toContain('wide-secret');
    // The Web UI puts the namespace in front of the path and names it in a header.
    const decoded = await post('/champion-loop/decode', encoded, { 'X-Namespace': 'champion-loop', Origin: UI });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(UI);
    expect(((await decoded.json()) as { payloads: unknown[] }).payloads).toEqual([plain]);
  });

  it('answers the browser preflight for the Web UI origin, and not for another', async () => {
    const preflight = (origin: string) =>
      fetch(`${base}/decode`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type,x-namespace',
        },
      });
    const allowed = await preflight(UI);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);
    expect((await preflight('http://elsewhere.example')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('says what is wrong with a bad request or a payload it cannot open', async () => {
    const notJson = await fetch(`${base}/decode`, { method: 'POST', body: 'payloads' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: 'the body is not JSON' });
    expect((await post('/decode', { nothing: 1 })).status).toBe(400);
    const foreign = { metadata: { encoding: b64('binary/encrypted'), 'encryption-key-id': b64('k9') }, data: b64('x') };
    const refused = await post('/decode', { payloads: [foreign] });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: string }).error).toMatch(/key 'k9', which this process does not have/);
    expect((await fetch(`${base}/other`, { method: 'POST' })).status).toBe(404);
  });

  it('refuses to start without keys, saying which variable to set', async () => {
    const result = await championLoop(['codec-server', '--port', '0'], {
      env: { CHAMPION_LOOP_CODEC_KEYS: '', CHAMPION_LOOP_CODEC_KEY_FILE: '' },
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/no codec keys: set CHAMPION_LOOP_CODEC_KEYS or CHAMPION_LOOP_CODEC_KEY_FILE/);
  });
});
