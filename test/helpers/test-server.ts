import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { loadDevServerConfig } from '../../src/devserver/dev-config.js';
import {
  DevServerStartError,
  restartablePort,
  startDevServer,
  type DevServer,
} from '../../src/devserver/dev-server.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';

/** A dev server of our own for one test file: temporal-dev.yaml on free ports and a temp database. */
export interface TestServer extends DevServer {
  readonly dir: string;
  /** Start the server again on the same ports and database (after `kill` or `stop`), with more dynamic config if given. */
  restart(options?: { dynamicConfig?: Record<string, unknown> }): Promise<TestServer>;
  /** Stop the server and remove its folder. */
  dispose(): Promise<void>;
}

/**
 * Start a dev server exactly as `npm run dev-server` would, but private to this test. Test files
 * run in parallel and each picks free ports: another may take one between the pick and the bind,
 * so a server that exits during start-up is started again on other ports (three tries).
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnFreePorts(options);
    } catch (error) {
      if (!(error instanceof DevServerStartError) || attempt >= 3) throw error;
      console.warn(`dev server start ${attempt} failed (${error.message}); trying other ports`);
    }
  }
}

/** More dynamic config than temporal-dev.yaml's; the Web UI's codec server. */
interface TestServerOptions {
  readonly dynamicConfig?: Record<string, unknown>;
  readonly uiCodecEndpoint?: string;
}

async function startOnFreePorts(options: TestServerOptions): Promise<TestServer> {
  const base = await loadDevServerConfig(path.join(PROJECT_ROOT, 'temporal-dev.yaml'));
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-test-'));
  const config = {
    ...base,
    port: await restartablePort(),
    ui_port: await restartablePort(),
    db_filename: path.join(dir, 'temporal.sqlite'),
    dynamic_config: { ...base.dynamic_config, ...options.dynamicConfig },
    ...(options.uiCodecEndpoint ? { ui_codec_endpoint: options.uiCodecEndpoint } : {}),
  };
  const launch = async (more: { dynamicConfig?: Record<string, unknown> } = {}): Promise<TestServer> => {
    const server = await startDevServer({
      cli: inject('temporalCli'),
      config: { ...config, dynamic_config: { ...config.dynamic_config, ...more.dynamicConfig } },
      projectRoot: PROJECT_ROOT,
      logFile: path.join(dir, 'server.log'),
    });
    return {
      ...server,
      dir,
      restart: launch,
      async dispose() {
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  };
  try {
    return await launch();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
