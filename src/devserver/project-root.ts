import { fileURLToPath } from 'node:url';

/** The project's root folder (where package.json and temporal-dev.yaml live). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
