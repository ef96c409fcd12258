// What a namespace must have before a loop runs on it: the loop's custom search attributes (its
// workflows are started and listed by them). A namespace an operator made without them is named,
// with the exact commands that register them, before anything is started (issue 28).
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { CANDIDATE, CHAMPION, GENERATION, LOOP_ID, LOOP_KIND, ROUND } from '../contract/search-attributes.js';

/** The loop's search attributes and the type each must have, as `temporal` names them. */
const REQUIRED = [LOOP_ID, LOOP_KIND, CANDIDATE, CHAMPION, GENERATION, ROUND].map((key) => ({
  name: key.name,
  type: key.type === 'INT' ? 'Int' : 'Keyword',
}));

const TYPE_NAMES: Readonly<Record<number, string>> = {
  [proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]: 'Keyword',
  [proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT]: 'Int',
  [proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT]: 'Text',
  [proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE]: 'Double',
  [proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL]: 'Bool',
  [proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME]: 'Datetime',
  [proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST]: 'KeywordList',
};

/**
 * What the namespace lacks, in words with the commands that mend it; null when it has every
 * search attribute with its type. `registered`: the namespace's custom search attributes by name.
 */
export function searchAttributeProblem(namespace: string, registered: ReadonlyMap<string, string>): string | null {
  const missing = REQUIRED.filter((wanted) => !registered.has(wanted.name));
  const mistyped = REQUIRED.filter(
    (wanted) => registered.has(wanted.name) && registered.get(wanted.name) !== wanted.type,
  );
  if (missing.length === 0 && mistyped.length === 0) return null;
  const lines: string[] = [];
  if (missing.length > 0)
    lines.push(
      `namespace '${namespace}' lacks the loop's search attribute${missing.length === 1 ? '' : 's'} ${missing.map((a) => a.name).join(', ')}. ` +
        'Register each with its own command (one --name per call; several --name flags in one call register only the first):',
      ...missing.map(
        (a) => `  temporal operator search-attribute create --namespace ${namespace} --name ${a.name} --type ${a.type}`,
      ),
    );
  for (const a of mistyped)
    lines.push(
      `namespace '${namespace}' has the search attribute ${a.name} as ${registered.get(a.name)}, the loop needs ${a.type}: ` +
        'remove it (temporal operator search-attribute remove) and create it again with that type, or use another namespace',
    );
  return lines.join('\n');
}

/** The namespace's custom search attributes and their types; null when the server does not say. */
async function registeredSearchAttributes(client: Client): Promise<Map<string, string> | null> {
  try {
    const answer = await client.connection.operatorService.listSearchAttributes({
      namespace: client.options.namespace,
    });
    return new Map(
      Object.entries(answer.customAttributes ?? {}).map(([name, type]) => [name, TYPE_NAMES[type] ?? String(type)]),
    );
  } catch {
    // A server or an API key without the operator service (Temporal Cloud lists them otherwise): unchecked.
    return null;
  }
}

/** Throw, naming what is missing and the commands, when the client's namespace lacks the loop's search attributes. */
export async function requireSearchAttributes(client: Client): Promise<void> {
  const registered = await registeredSearchAttributes(client);
  const problem = registered === null ? null : searchAttributeProblem(client.options.namespace, registered);
  if (problem !== null) throw new Error(problem);
}
