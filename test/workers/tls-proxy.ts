import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import { tlsFixture } from './fake-frontend.js';

/** A TLS front for a plain dev server: what a cluster with mTLS looks like from the client's side. */
export interface TlsProxy {
  readonly address: string;
  /** Common names of the client certificates presented, one per accepted connection. */
  readonly clients: string[];
  close(): Promise<void>;
}

/**
 * Terminate TLS with the test server certificate, require a client certificate signed by the
 * test CA (unless told not to), and pass the decrypted bytes (gRPC over HTTP/2) on to `target`.
 */
export async function startTlsProxy(target: string, options: { requireClientCert?: boolean } = {}): Promise<TlsProxy> {
  const [host, port] = target.split(':');
  const clients: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(
    {
      key: readFileSync(tlsFixture('server.key')),
      cert: readFileSync(tlsFixture('server.crt')),
      ca: readFileSync(tlsFixture('ca.crt')),
      requestCert: true,
      rejectUnauthorized: options.requireClientCert ?? true,
      ALPNProtocols: ['h2'],
    },
    (socket: TLSSocket) => {
      const cn = socket.getPeerCertificate().subject?.CN;
      clients.push(Array.isArray(cn) ? cn.join(',') : (cn ?? ''));
      const upstream = connect(Number(port), host);
      for (const end of [socket, upstream]) {
        sockets.add(end);
        end.on('close', () => sockets.delete(end));
        end.on('error', () => undefined);
      }
      socket.pipe(upstream).pipe(socket);
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `localhost:${(server.address() as { port: number }).port}`,
    clients,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
