import { readFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';

/** A file of the test-only TLS material in test/fixtures/tls. */
export function tlsFixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));
}

/** One gRPC call as the fake frontend saw it. */
interface SeenCall {
  readonly method: string;
  readonly authorization: string | undefined;
  /** The common name of the client certificate presented, if any. */
  readonly clientCertificate: string | undefined;
}

/** A TLS gRPC endpoint that answers every call with an empty message: enough for a client to connect. */
export interface FakeFrontend {
  readonly address: string;
  readonly calls: SeenCall[];
  close(): Promise<void>;
}

/**
 * Serve gRPC over TLS with the test server certificate on a free port; with `requireClientCert`
 * a client without a certificate signed by the test CA is refused in the handshake.
 */
export async function startFakeFrontend(options: { requireClientCert: boolean }): Promise<FakeFrontend> {
  const calls: SeenCall[] = [];
  const server: Http2SecureServer = createSecureServer({
    key: readFileSync(tlsFixture('server.key')),
    cert: readFileSync(tlsFixture('server.crt')),
    ca: readFileSync(tlsFixture('ca.crt')),
    requestCert: true,
    rejectUnauthorized: options.requireClientCert,
    ALPNProtocols: ['h2'],
  });
  server.on('stream', (stream, headers) => {
    const peer = (stream.session?.socket as TLSSocket | undefined)?.getPeerCertificate();
    const cn = peer?.subject?.CN;
    calls.push({
      method: String(headers[':path']),
      authorization: headers.authorization,
      clientCertificate: Array.isArray(cn) ? cn.join(',') : cn,
    });
    stream.resume();
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    // One empty protobuf message: uncompressed flag and a zero length.
    stream.end(Buffer.alloc(5));
  });
  server.on('sessionError', () => undefined);
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    address: `localhost:${port}`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Open sessions (the SDKs keep theirs) would hold close() forever.
        setTimeout(resolve, 1_000).unref();
      }),
  };
}
