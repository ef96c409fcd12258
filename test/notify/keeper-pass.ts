import type { LoopConfig } from '../../src/config/loop-config.js';
import { appendLedgerRows, readLedgerCopy } from '../../src/ledger-copy/copy-files.js';
import type { LoopSynced } from '../../src/ledger-copy/ledger-keeper.js';
import { initialLoopState } from '../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import type { NotifySettings } from '../../src/notify/settings.js';

/**
 * What the ledger keeper does in one pass of loop `spam`, for the notification tests: append
 * `appended` to the copy in `stateDir`, and give what it hands its hook (not handed yet).
 */
export async function keeperPass(stateDir: string, notify: NotifySettings, appended: LedgerRow[]): Promise<LoopSynced> {
  await appendLedgerRows(stateDir, appended);
  return {
    loopId: 'spam',
    stateDir,
    config: { state_dir: stateDir, notify } as unknown as LoopConfig,
    appended,
    copyRows: (await readLedgerCopy(stateDir)).length,
    state: initialLoopState(),
  };
}
