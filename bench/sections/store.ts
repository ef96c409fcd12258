// Section 10: the artifact store's cost (docs/artifacts.md, "A fleet without a shared disk"). The
// dispatch run of section 1 three times, side by side in this run: without a store; with every
// working file going through a real S3 server (SeaweedFS on localhost); and with the store and
// `keep_local_gib: 0`, so that each step after a training fetches what it reads again, as on a
// fleet where no step runs on the host that wrote its files. The dispatch p50 of each and their
// ratios, the bytes the loop put in the store per training run, and the bytes uploaded and
// fetched per training run (the steps' logs).
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ensureWeed } from '../../scripts/object-store/provision.js';
import { startObjectStore, type ObjectStoreServer } from '../../scripts/object-store/server.js';
import type { ArtifactSettings } from '../../src/artifacts/store-settings.js';
import type { BenchContext } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { runUtilisation } from './utilisation.js';

const BUCKET = 'bench';
const PREFIX = 'loop/';

/** Objects and bytes under a key prefix of the bucket. */
async function stored(server: ObjectStoreServer, prefix: string): Promise<{ objects: number; bytes: number }> {
  const client = server.client();
  let objects = 0;
  let bytes = 0;
  try {
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: BUCKET,
          Prefix: prefix,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      for (const object of page.Contents ?? []) {
        objects += 1;
        bytes += object.Size ?? 0;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  } finally {
    client.destroy();
  }
  return { objects, bytes };
}

/** The dispatch p50 a utilisation run reported. */
function dispatchP50(figures: readonly Figure[]): number | null {
  return figures.find((entry) => entry.name.startsWith('dispatch latency p50'))?.value ?? null;
}

export async function runStore(
  ctx: BenchContext,
): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const server = await startObjectStore({ weed: await ensureWeed(ctx.log) });
  const saved = { ...process.env };
  try {
    await server.bucket(BUCKET);
    // The in-process lanes and orchestrator take the credentials as a host's workers would.
    Object.assign(process.env, server.env);
    const store: ArtifactSettings = { url: `s3://${BUCKET}/${PREFIX}`, endpoint: server.endpoint };
    ctx.log('store: the dispatch run without an artifact store');
    const without = await runUtilisation(ctx, null);
    ctx.log('store: the same run with every working file in the artifact store');
    const withStore = await runUtilisation(ctx, null, store);
    const blobs = await stored(server, `${PREFIX}blobs/`);
    ctx.log('store: the same run keeping no run directory past its step (keep_local_gib: 0)');
    // A prefix of its own: under the first one `start` would go on from the mirrored ledger copy of the run before.
    const elsewhere = await runUtilisation(ctx, null, {
      url: `s3://${BUCKET}/elsewhere/`,
      endpoint: server.endpoint,
      keep_local_gib: 0,
    });
    const runs = ctx.options.rounds * ctx.options.candidates;
    const plain = dispatchP50(without.figures);
    const through = dispatchP50(withStore.figures);
    const remote = dispatchP50(elsewhere.figures);
    const section = 'store';
    /** A p50 against the one without a store. */
    const againstPlain = (p50: number | null) => (plain === null || p50 === null || plain === 0 ? null : p50 / plain);
    const figures = [
      figure(section, 'dispatch latency p50 without a store', plain, 'ms'),
      figure(section, 'dispatch latency p50 with the store', through, 'ms'),
      figure(section, 'dispatch p50 with / without the store', againstPlain(through), 'x'),
      figure(section, `bytes put in the store per training run (${runs} runs)`, blobs.bytes / runs, 'B'),
      figure(section, 'objects put in the store per training run', blobs.objects / runs, ''),
      figure(
        section,
        'bytes the lanes uploaded per training run, one host',
        (withStore.traffic?.uploaded ?? 0) / runs,
        'B',
      ),
      figure(
        section,
        'bytes the lanes fetched per training run, one host',
        (withStore.traffic?.fetched ?? 0) / runs,
        'B',
      ),
      figure(
        section,
        'bytes the lanes fetched per training run, each step on another host (keep_local_gib: 0)',
        (elsewhere.traffic?.fetched ?? 0) / runs,
        'B',
      ),
      figure(section, 'dispatch latency p50, each step on another host', remote, 'ms'),
      figure(section, 'dispatch p50 each step on another host / without the store', againstPlain(remote), 'x'),
    ];
    const notes = [
      `store: ${blobs.objects} objects, ${blobs.bytes} bytes under blobs/ for ${runs} training runs; ` +
        'on one host every lane finds its inputs where they were written, so nothing is fetched; ' +
        'with keep_local_gib: 0 each evaluation fetches its run directory back after the training deleted it',
    ];
    return {
      figures,
      details: { without: without.details, withStore: withStore.details, elsewhere: elsewhere.details, blobs, runs },
      notes,
    };
  } finally {
    process.env = saved;
    await server.dispose();
  }
}
