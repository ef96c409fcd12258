import { z } from 'zod';
import { httpUrlWithoutCredentials } from '../config/fields.js';

// loop.yaml `artifacts:`: an S3-compatible object store the loop keeps its artifacts in
// (docs/artifacts.md). This section travels in workflow inputs, so it names no secret:
// credentials come the way the AWS tools take them (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
// AWS_PROFILE and ~/.aws, an instance role), read by each worker where it runs.

const URL_EXPECTED = 'an s3:// URL of a bucket and an optional prefix, e.g. s3://ml-artifacts/champion-loop';
const ENDPOINT_EXPECTED = 'an http(s) URL of an S3-compatible server, e.g. http://seaweedfs.internal:8333';

/** Where in the store: a bucket and a key prefix ('' or ending in '/'). */
export interface StoreLocation {
  readonly bucket: string;
  readonly prefix: string;
}

/** `s3://bucket/some/prefix` as bucket and prefix (`some/prefix/`); null when it is not one. */
export function storeLocation(url: string): StoreLocation | null {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (match === null) return null;
  const rest = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (rest.split('/').some((part) => part === '.' || part === '..')) return null;
  return { bucket: match[1] ?? '', prefix: rest === '' ? '' : `${rest}/` };
}

/** The s3:// URI of a key in the store. */
export function objectUri(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`;
}

const endpoint = httpUrlWithoutCredentials(
  ENDPOINT_EXPECTED,
  'they come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE',
);

export const artifactsSchema = z.strictObject(
  {
    url: z.string({ error: URL_EXPECTED }).refine((text) => storeLocation(text) !== null, { error: URL_EXPECTED }),
    // Absent: AWS S3 itself, found by the region.
    endpoint: endpoint.optional(),
    // Absent: AWS_REGION or the profile's, else us-east-1 (most S3-compatible servers ignore it).
    region: z.string({ error: 'a region name, e.g. eu-west-1' }).min(1).optional(),
    // Bucket in the path (http://host/bucket/key) rather than the host name: what most
    // S3-compatible servers need. Absent: true with an endpoint, false for AWS S3.
    path_style: z.boolean({ error: 'true or false' }).optional(),
    // What each host keeps of run directories whose files are in the store, in GiB (the used
    // longest ago go first; activities/support/run-dir-cache.ts). Absent: 50.
    keep_local_gib: z
      .number({ error: 'a number of GiB, e.g. 50' })
      .min(0, { error: 'a number of GiB, 0 or more' })
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? 'a mapping: {url: s3://bucket/prefix, endpoint?, region?, path_style?, keep_local_gib?}'
        : undefined,
  },
);

/** loop.yaml `artifacts:` as written. */
export type ArtifactSettings = z.output<typeof artifactsSchema>;
