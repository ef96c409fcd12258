// The model-registry activity, registered by the package worker. Workflows import this module as types only.
import { registerChampion } from './register-champion.js';

export const registryActivities = { registerChampion };

/** The activity's type name as the packaging workflow's history records it (the ledger fold skips it). */
export const REGISTER_CHAMPION = 'registerChampion' satisfies keyof typeof registryActivities;
