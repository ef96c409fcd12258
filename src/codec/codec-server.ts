import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';

// `champion-loop codec-server`: the codec behind HTTP, as the Temporal Web UI and
// `temporal --codec-endpoint` call it: POST /encode and /decode with {"payloads": [...]}, each payload's
// metadata values and data in base64 (the proto's JSON form). The Web UI calls it from the
// browser, so it answers CORS preflights for the origins it is given.

/** What the server is started with. */
export interface CodecServerOptions {
  readonly codec: PayloadCodec;
  /** Browser origins allowed to call it (the Web UI's, e.g. http://localhost:8233). */
  readonly origins: readonly string[];
}

interface JsonPayload {
  readonly metadata?: Record<string, string>;
  readonly data?: string;
}

/** A request body that is not a {"payloads": [...]} of base64 payloads. */
class BadRequest extends Error {}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

function fromJson(value: unknown): Payload {
  const json = value as JsonPayload | null;
  if (json === null || typeof json !== 'object') throw new BadRequest('each payload must be an object');
  const metadata: Record<string, Uint8Array> = {};
  for (const [key, encoded] of Object.entries(json.metadata ?? {})) {
    if (typeof encoded !== 'string') throw new BadRequest(`metadata '${key}' must be a base64 string`);
    metadata[key] = Buffer.from(encoded, 'base64');
  }
  if (json.data !== undefined && typeof json.data !== 'string') throw new BadRequest('data must be a base64 string');
  return { metadata, data: Buffer.from(json.data ?? '', 'base64') };
}

function toJson(payload: Payload): JsonPayload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, bytes]) => [key, Buffer.from(bytes).toString('base64')]),
  );
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BadRequest(`a request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest('the body is not JSON');
  }
}

function allowOrigin(request: IncomingMessage, response: ServerResponse, origins: readonly string[]): void {
  const origin = request.headers.origin;
  if (origin === undefined || !origins.includes(origin)) return;
  response.setHeader('Access-Control-Allow-Origin', origin);
  response.setHeader('Access-Control-Allow-Credentials', 'true');
  response.setHeader('Vary', 'Origin');
}

function answer(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(value));
}

async function handle(request: IncomingMessage, response: ServerResponse, options: CodecServerOptions): Promise<void> {
  allowOrigin(request, response, options.origins);
  if (request.method === 'OPTIONS') {
    response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
    response.writeHead(204).end();
    return;
  }
  // The Web UI may put the namespace in front of the path (/<namespace>/decode).
  const action = new URL(request.url ?? '/', 'http://codec').pathname.split('/').filter(Boolean).at(-1);
  if (request.method !== 'POST' || (action !== 'encode' && action !== 'decode')) {
    answer(response, 404, { error: 'POST /encode or /decode with {"payloads": [...]}' });
    return;
  }
  try {
    const parsed = (await body(request)) as { payloads?: unknown } | null;
    if (!Array.isArray(parsed?.payloads)) throw new BadRequest('the body must be {"payloads": [...]}');
    const payloads = parsed.payloads.map(fromJson);
    const done = action === 'encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
    answer(response, 200, { payloads: done.map(toJson) });
  } catch (error) {
    answer(response, error instanceof BadRequest ? 400 : 422, { error: (error as Error).message });
  }
}

/** An HTTP server for the codec (not yet listening). */
export function codecServer(options: CodecServerOptions): Server {
  return createServer((request, response) => {
    handle(request, response, options).catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, { error: (error as Error).message });
      else response.destroy();
    });
  });
}
