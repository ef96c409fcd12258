import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA } from './aes-gcm-codec.js';
import { NoKeyCodec } from './data-converter.js';
import { openPayloads } from './decode-payloads.js';

// A worker whose keys cannot open the loops' history would fail every task it took; it is
// stopped before it polls instead, with what to set.

/** The running loops' history is sealed with a key this process lacks, or with none it can use. */
class CodecMismatchError extends Error {
  override readonly name = 'CodecMismatchError';
}

const words = new TextDecoder();

/** Checks that this client opens the first event of up to `sample` running generations' histories. */
export async function requireHistoryKeys(client: Client, sample = 5): Promise<void> {
  // A process without keys has only the codec that says so (data-converter.ts): no key at all.
  const codecs = client.options.loadedDataConverter.payloadCodecs.filter((codec) => !(codec instanceof NoKeyCodec));
  await openFirstEvents(client, codecs.length, sample);
}

async function openFirstEvents(client: Client, codecs: number, sample: number): Promise<void> {
  // The raw listing: the SDK's would open each memo with the keys under test before this could say why.
  const { executions } = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query: `WorkflowType = 'generation' AND ExecutionStatus = 'Running'`,
    pageSize: sample,
  });
  for (const execution of executions ?? []) {
    const workflowId = execution.execution?.workflowId ?? '';
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, runId: execution.execution?.runId ?? '' },
      maximumPageSize: 1,
    });
    const input = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    if (!input) continue;
    const encoding = input.metadata?.encoding ? words.decode(input.metadata.encoding) : '';
    const keyId = input.metadata?.[KEY_ID_METADATA] ? words.decode(input.metadata[KEY_ID_METADATA]) : '';
    if (encoding === ENCRYPTED_ENCODING && codecs === 0) {
      throw new CodecMismatchError(
        `${workflowId}'s history is encrypted (key '${keyId}') and this process has no codec key: ` +
          'set CHAMPION_LOOP_CODEC_KEYS or CHAMPION_LOOP_CODEC_KEY_FILE to the keys its other workers use',
      );
    }
    try {
      defaultPayloadConverter.fromPayload(await openPayloads(client, input));
    } catch (error) {
      throw new CodecMismatchError(
        `${workflowId}'s history does not open with this process's codec keys: ${(error as Error).message}`,
      );
    }
  }
}
