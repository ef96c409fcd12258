// The loop's metrics on the SDK's own meter (`Runtime.instance().metricMeter`), so Prometheus
// scrapes them from the worker's metrics port beside the `temporal_*` ones, with no dependency of
// our own. Fed by the ledger keeper's passes: only the orchestrator that holds a loop's ledger copy
// exports that loop, so several orchestrators never count the same rows twice.
import type { Client } from '@temporalio/client';
import type { MetricCounter, MetricGauge, MetricMeter } from '@temporalio/common';
import { readLedgerCopy } from '../ledger-copy/copy-files.js';
import type { LoopSynced } from '../ledger-copy/ledger-keeper.js';
import { stateJson } from '../ledger/loop-state.js';
import type { LedgerRow } from '../ledger/rows.js';
import { loopWorkflowId } from '../workflows/ids.js';
import type { LoopView } from '../workflows/loop-view.js';
import { stateQuery } from '../workflows/messages.js';
import { LOOP_METRIC_NAMES, LOOP_METRICS, type LoopMetricName, type Sample } from './loop-metric-catalogue.js';
import {
  lastReserveCheck,
  reserveCheckFigures,
  rowCounts,
  stateFigures,
  viewFigures,
  zeroCounts,
} from './loop-figures.js';

/** How often at most a loop's `state` query is asked for the jobs and lanes figures. */
const VIEW_INTERVAL_MS = 5_000;

export interface LoopMetricsOptions {
  readonly meter: MetricMeter;
  /** The loop's `state` view, as `status` gets it. */
  readonly queryView: (loopId: string) => Promise<LoopView>;
  /** A loop's whole ledger copy (read once, when this process first exports the loop). */
  readonly readLedger?: (stateDir: string) => Promise<readonly LedgerRow[]>;
  readonly viewIntervalMs?: number;
  readonly log?: (message: string) => void;
}

interface Watched {
  /** When the last view query was asked. */
  viewAt: number;
  /** A view query is scheduled and has not been asked yet. */
  due: boolean;
  /** The last query failure logged (each distinct one once). */
  warned: string | null;
}

export class LoopMetrics {
  private readonly gauges = new Map<LoopMetricName, MetricGauge>();
  private readonly counters = new Map<LoopMetricName, MetricCounter>();
  private readonly loops = new Map<string, Watched>();

  constructor(private readonly options: LoopMetricsOptions) {
    for (const name of LOOP_METRIC_NAMES) {
      const spec = LOOP_METRICS[name];
      if (spec.kind === 'counter') this.counters.set(name, options.meter.createCounter(name, '', spec.help));
      else this.gauges.set(name, options.meter.createGauge(name, spec.valueType, '', spec.help));
    }
  }

  /** Set gauges and add to counters for one loop. */
  record(loopId: string, samples: readonly Sample[]): void {
    for (const { metric, labels, value } of samples) {
      const tags = { loop: loopId, ...labels };
      const counter = this.counters.get(metric);
      if (counter) counter.add(value, tags);
      else this.gauges.get(metric)?.set(value, tags);
    }
  }

  /** The ledger keeper's hook: a pass brought a loop's copy up to date. Never throws. */
  async onSynced(synced: LoopSynced): Promise<void> {
    const { loopId } = synced;
    try {
      let watched = this.loops.get(loopId);
      const first = watched === undefined;
      if (!watched) {
        watched = { viewAt: 0, due: false, warned: null };
        this.loops.set(loopId, watched);
        this.record(loopId, zeroCounts());
      }
      this.record(loopId, rowCounts(synced.appended));
      this.record(loopId, stateFigures(stateJson(synced.state, synced.stateDir, ''), synced.config));
      this.record(loopId, [{ metric: 'champion_loop_synced_timestamp_seconds', value: Date.now() / 1000 }]);
      // The first time, the last reserve check may be older than this process: the copy has it.
      const last = lastReserveCheck(first ? await this.wholeLedger(synced) : synced.appended);
      if (last) this.record(loopId, reserveCheckFigures(last));
      this.sampleView(loopId, watched);
    } catch (error) {
      this.options.log?.(`metrics of loop ${loopId} not updated: ${(error as Error).message}`);
    }
  }

  /** The loop's whole ledger copy (it holds this pass's rows already); this pass's rows if it cannot be read. */
  private async wholeLedger(synced: LoopSynced): Promise<readonly LedgerRow[]> {
    try {
      return (await this.options.readLedger?.(synced.stateDir)) ?? synced.appended;
    } catch (error) {
      this.options.log?.(`last reserve check of loop ${synced.loopId} not read: ${(error as Error).message}`);
      return synced.appended;
    }
  }

  /**
   * Ask for the view in the background (the keeper's next pass does not wait for it): at most once
   * an interval, and always once after the last pass asked (a stopped loop reads as its final view).
   */
  private sampleView(loopId: string, watched: Watched): void {
    if (watched.due) return;
    const interval = this.options.viewIntervalMs ?? VIEW_INTERVAL_MS;
    watched.due = true;
    const query = async (): Promise<void> => {
      watched.due = false;
      watched.viewAt = Date.now();
      try {
        this.record(loopId, viewFigures(await this.options.queryView(loopId)));
        watched.warned = null;
      } catch (error) {
        const message = (error as Error).message;
        if (watched.warned !== message)
          this.options.log?.(`jobs and lanes metrics of loop ${loopId} not updated: ${message}`);
        watched.warned = message;
      }
    };
    const wait = Math.max(0, watched.viewAt + interval - Date.now());
    setTimeout(() => void query(), wait).unref();
  }
}

/** The metrics of every loop this orchestrator keeps the ledger copy of, on `meter`. */
export function createLoopMetrics(client: Client, meter: MetricMeter, log?: (message: string) => void): LoopMetrics {
  return new LoopMetrics({
    meter,
    queryView: (loopId) => client.workflow.getHandle(loopWorkflowId(loopId)).query(stateQuery),
    readLedger: (stateDir) => readLedgerCopy(stateDir),
    ...(log ? { log } : {}),
  });
}
