import type proto from '@temporalio/proto';

/** A protobuf Timestamp in ms since the epoch (0 when absent); its seconds may come as a Long. */
export function timestampMs(time: proto.google.protobuf.ITimestamp | null | undefined): number {
  if (!time) return 0;
  const seconds = time.seconds as unknown;
  const whole =
    typeof seconds === 'object' && seconds !== null
      ? (seconds as { toNumber(): number }).toNumber()
      : Number(seconds ?? 0);
  return whole * 1000 + (time.nanos ?? 0) / 1e6;
}
