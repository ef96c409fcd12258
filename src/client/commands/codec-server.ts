// champion-loop codec-server: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import { AesGcmCodec } from '../../codec/aes-gcm-codec.js';
import { codecKeysFrom } from '../../codec/codec-keys.js';
import { codecServer } from '../../codec/codec-server.js';

/** `champion-loop codec-server`. */
export function addCodecServerCommand(program: Command): void {
  program
    .command('codec-server')
    .description(
      'serve the payload codec (CHAMPION_LOOP_CODEC_KEYS or CHAMPION_LOOP_CODEC_KEY_FILE) over HTTP for the Temporal Web UI (its codec endpoint) and `temporal --codec-endpoint`, so both show encrypted payloads decoded',
    )
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on', '8888')
    .option('--origin <url...>', "browser origins allowed to call it: the Web UI's address", [
      'http://localhost:8233',
      'http://127.0.0.1:8233',
    ])
    .action(async (options: { host: string; port: string; origin: string[] }) => {
      const keys = codecKeysFrom();
      if (keys === null)
        throw new Error(
          'no codec keys: set CHAMPION_LOOP_CODEC_KEYS or CHAMPION_LOOP_CODEC_KEY_FILE to the keys the workers use (docs/operating.md, "Encrypting payloads")',
        );
      const server = codecServer({ codec: new AesGcmCodec(keys), origins: options.origin });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(Number(options.port), options.host, resolve);
      });
      const address = server.address();
      const where = typeof address === 'object' && address ? `http://${options.host}:${address.port}` : String(address);
      console.log(
        `codec server at ${where} (keys ${keys.keys.map((key) => key.id).join(', ')}; browsers from ${options.origin.join(', ')})`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => server.close(() => resolve());
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
