// @ts-check
/**
 * The line a trainer prints before exiting 1 when no checkpoint qualified. The loop looks
 * for it in the training log (loop.yaml `no_checkpoint_marker` must hold the same text).
 */
export const NO_CHECKPOINT = 'no eligible checkpoint';
