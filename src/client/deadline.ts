import { isGrpcCancelledError, isGrpcDeadlineError } from '@temporalio/client';

/**
 * Whether a call failed because its deadline passed. The client's own timer says
 * DEADLINE_EXCEEDED; the server keeps the same deadline and, when its timer fires first (a busy
 * client's event loop is late), resets the stream with CANCEL, which gRPC clients are to read as
 * the deadline too once it has passed (grpc/grpc doc/PROTOCOL-HTTP2.md, "RST_STREAM").
 */
export function deadlinePassed(error: unknown, deadline: number): boolean {
  return isGrpcDeadlineError(error) || (isGrpcCancelledError(error) && Date.now() >= deadline);
}
