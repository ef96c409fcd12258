import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver on localhost for the notification tests: a real HTTP server whose answer
// to each request the test decides (fail, hang, answer slowly), recording every request.

interface Received {
  readonly path: string;
  readonly body: unknown;
  /** The status it was answered with; null while unanswered (or never answered). */
  status: number | null;
  readonly at: number;
}

/** How to answer one request: a status (after `delayMs`), or 'hang' (never answer). */
type Answer = { status: number; delayMs?: number; body?: string } | 'hang';

export interface Receiver {
  readonly url: string;
  readonly requests: Received[];
  /** The bodies answered 2xx, in order. */
  delivered(): unknown[];
  answer: (request: Received, index: number) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 200 })): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const receiver: Receiver = {
    url: '',
    requests: [],
    answer,
    delivered: () =>
      receiver.requests.filter((r) => r.status !== null && r.status < 300).map((request) => request.body),
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const received: Received = { path: request.url ?? '', body: JSON.parse(text), status: null, at: Date.now() };
      const index = receiver.requests.push(received) - 1;
      const decided = receiver.answer(received, index);
      if (decided === 'hang') {
        hanging.add(response);
        return;
      }
      const send = () => {
        if (response.destroyed) return;
        received.status = decided.status;
        response.writeHead(decided.status, { 'content-type': 'text/plain' });
        response.end(decided.body ?? (decided.status < 300 ? 'ok' : 'no'));
      };
      if (decided.delayMs) setTimeout(send, decided.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, { url: `http://127.0.0.1:${port}/hooks/T000/B000/SECRETTOKEN` });
}
