// The ledger copy mirrored to the artifact store (docs/artifacts.md): after a pass of the ledger
// keeper appended rows, ledger.jsonl and state.json go up as the pass left them (at most every
// ten seconds a loop, and once more when the orchestrator stops), so a host that never saw the
// loop can go on with it when history is gone: `start` with an empty state dir fetches them.
import { access, readFile } from 'node:fs/promises';
import { ledgerCopyPath, stateCopyPath } from '../ledger-copy/copy-files.js';
import type { LoopSynced } from '../ledger-copy/ledger-keeper.js';
import { ObjectStore } from './object-store.js';
import type { ArtifactSettings } from './store-settings.js';

/** A loop's ledger copy is mirrored at most this often while rows keep coming. */
const MIRROR_EVERY_MS = 10_000;

/** Where a loop's mirrored copy lives under the store's prefix. */
export function mirrorKeys(store: ObjectStore, loopId: string): { ledger: string; state: string } {
  return { ledger: store.key(`ledgers/${loopId}/ledger.jsonl`), state: store.key(`ledgers/${loopId}/state.json`) };
}

interface MirroredLoop {
  settings: ArtifactSettings;
  stateDir: string;
  /** Rows the store's copy lacks (or not yet mirrored by this process). */
  dirty: boolean;
  mirroredAt: number;
  inFlight: Promise<void> | null;
  /** The store failed the last time: said once, until it works again. */
  failing: boolean;
}

export class LedgerMirror {
  private readonly loops = new Map<string, MirroredLoop>();
  private readonly stores = new Map<string, ObjectStore>();

  constructor(
    private readonly log: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** After a keeper pass: mirror the loop's copy if it changed and the last upload is old enough. Returns at once. */
  async onSynced(synced: LoopSynced): Promise<void> {
    const settings = synced.config.artifacts;
    if (settings === undefined) return;
    let loop = this.loops.get(synced.loopId);
    if (loop === undefined) {
      loop = { settings, stateDir: synced.stateDir, dirty: true, mirroredAt: 0, inFlight: null, failing: false };
      this.loops.set(synced.loopId, loop);
    }
    Object.assign(loop, { settings, stateDir: synced.stateDir });
    if (synced.appended.length > 0) loop.dirty = true;
    if (!loop.dirty || loop.inFlight !== null || this.now() - loop.mirroredAt < MIRROR_EVERY_MS) return;
    await this.start(synced.loopId, loop);
  }

  /** Mirror every loop with rows the store lacks, and wait (at most `graceMs`) for the uploads. */
  async finish(graceMs: number): Promise<void> {
    for (const [loopId, loop] of this.loops) {
      await loop.inFlight;
      if (loop.dirty) await this.start(loopId, loop);
    }
    const pending = [...this.loops.values()].map((loop) => loop.inFlight).filter((each) => each !== null);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(pending),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    for (const store of this.stores.values()) store.close();
    this.stores.clear();
  }

  /** Reads both files now (the keeper appends only in its passes, and this runs inside one), uploads them in the background. */
  private async start(loopId: string, loop: MirroredLoop): Promise<void> {
    let ledger: Buffer;
    let state: Buffer | null;
    try {
      [ledger, state] = await Promise.all([
        readFile(ledgerCopyPath(loop.stateDir)),
        readFile(stateCopyPath(loop.stateDir)).catch(() => null),
      ]);
    } catch {
      return; // No copy yet: the next pass writes one.
    }
    loop.dirty = false;
    const store = this.storeFor(loop.settings);
    const keys = mirrorKeys(store, loopId);
    loop.inFlight = (async () => {
      try {
        if (state !== null) await store.putBytes(keys.state, state);
        await store.putBytes(keys.ledger, ledger);
        loop.mirroredAt = this.now();
        if (loop.failing) this.log(`loop ${loopId}: its ledger copy is mirrored to ${store.uri(keys.ledger)} again`);
        loop.failing = false;
      } catch (error) {
        loop.dirty = true;
        if (!loop.failing)
          this.log(
            `loop ${loopId}: its ledger copy could not be mirrored to the artifact store (${error instanceof Error ? error.message : String(error)}); tried again after the next rows. The copy in ${loop.stateDir} is kept as always`,
          );
        loop.failing = true;
      } finally {
        loop.inFlight = null;
      }
    })();
  }

  private storeFor(settings: ArtifactSettings): ObjectStore {
    const id = JSON.stringify(settings);
    let store = this.stores.get(id);
    if (store === undefined) {
      store = new ObjectStore(settings);
      this.stores.set(id, store);
    }
    return store;
  }
}

/**
 * A state dir with no ledger copy, of a loop whose copy is mirrored in the store: the mirror
 * fetched into it (each file checked against the sha256 it was stored with). Returns what was
 * fetched, or null when the state dir has a copy already or the store has none.
 */
export async function restoreLedgerCopy(
  settings: ArtifactSettings,
  loopId: string,
  stateDir: string,
): Promise<{ readonly uri: string } | null> {
  const local = ledgerCopyPath(stateDir);
  if (
    await access(local).then(
      () => true,
      () => false,
    )
  )
    return null;
  const store = new ObjectStore(settings);
  try {
    const keys = mirrorKeys(store, loopId);
    const ledgerSha = await store.storedSha256(keys.ledger);
    if (ledgerSha === null) return null;
    const stateSha = await store.storedSha256(keys.state);
    if (stateSha !== null) await store.getFile(keys.state, stateCopyPath(stateDir), stateSha);
    await store.getFile(keys.ledger, local, ledgerSha);
    return { uri: store.uri(keys.ledger) };
  } finally {
    store.close();
  }
}
