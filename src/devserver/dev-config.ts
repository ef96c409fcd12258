import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

const SEARCH_ATTRIBUTE_TYPES = ['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'] as const;

const devConfigSchema = z.strictObject({
  namespace: z.string().min(1),
  ip: z.string().default('127.0.0.1'),
  port: z.number().int().min(1).max(65535),
  ui_port: z.number().int().min(1).max(65535),
  db_filename: z.string().min(1),
  /** How long closed workflow histories are kept, e.g. `90d` (the dev server's own default is 24h). */
  retention_days: z.number().int().min(1).max(3650).default(90),
  log_level: z.enum(['debug', 'info', 'warn', 'error']).default('warn'),
  search_attributes: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), z.enum(SEARCH_ATTRIBUTE_TYPES)),
  sqlite_pragmas: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
  dynamic_config: z.record(z.string(), z.unknown()).default({}),
  /** The Web UI's codec server (`champion-loop codec-server`), so it shows encrypted payloads decoded. */
  ui_codec_endpoint: z.url().optional(),
});

/** `temporal-dev.yaml`, the local dev server's settings. */
export type DevServerConfig = z.infer<typeof devConfigSchema>;

/** Parse `temporal-dev.yaml` text; a bad file names the field and what was expected. */
function parseDevServerConfig(text: string, file: string): DevServerConfig {
  const parsed = devConfigSchema.safeParse(parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(top level)';
    throw new Error(`${file}: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Read and validate `temporal-dev.yaml`. */
export async function loadDevServerConfig(file: string): Promise<DevServerConfig> {
  return parseDevServerConfig(await readFile(file, 'utf8'), file);
}

/** Flags shared by the dev server we start and the ones tests start (namespace, attributes, pragmas, dynamic config). */
function sharedServerFlags(config: DevServerConfig): string[] {
  return [
    ...Object.entries(config.search_attributes).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
    ...Object.entries(config.sqlite_pragmas).flatMap(([name, value]) => ['--sqlite-pragma', `${name}=${value}`]),
    ...Object.entries(config.dynamic_config).flatMap(([key, value]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
  ];
}

/** The full `temporal server start-dev` argument list for the project's own dev server. */
export function devServerArgs(config: DevServerConfig, projectRoot: string): string[] {
  return [
    'server',
    'start-dev',
    '--namespace',
    config.namespace,
    '--ip',
    config.ip,
    '--port',
    String(config.port),
    '--ui-port',
    String(config.ui_port),
    '--db-filename',
    path.resolve(projectRoot, config.db_filename),
    '--log-level',
    config.log_level,
    '--ui-disable-news-fetch',
    ...(config.ui_codec_endpoint ? ['--ui-codec-endpoint', config.ui_codec_endpoint] : []),
    ...sharedServerFlags(config),
  ];
}
