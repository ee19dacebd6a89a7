import { REDACTION_IDS_DESCRIPTION } from './redaction.js';
import { RETRIEVAL_IDS_DESCRIPTION } from './retrieval-tool.js';

/** The names this package's tools are registered under in a call, when the call carries them. */
export interface OwnToolNames {
  readonly redaction?: string;
  readonly retrieval?: string;
}

/** The description of a definition's `toolCallIds` argument, from its JSON Schema. */
function idsDescription(definition: unknown): unknown {
  if (typeof definition !== 'object' || definition === null) return undefined;
  const schema = (definition as { inputSchema?: unknown }).inputSchema;
  if (typeof schema !== 'object' || schema === null) return undefined;
  const properties = (schema as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const ids = (properties as { toolCallIds?: unknown }).toolCallIds;
  return typeof ids === 'object' && ids !== null ? (ids as { description?: unknown }).description : undefined;
}

/**
 * Finds the redaction and retrieval tools among a call's tool definitions (`{ name, inputSchema }` as the adapters
 * pass them) by what they are: the description of their `toolCallIds` argument, which their schemas carry whatever
 * name and tool description the caller gave them. Empty when the call carries neither.
 */
export function findOwnTools(definitions: readonly unknown[]): OwnToolNames {
  let redaction: string | undefined;
  let retrieval: string | undefined;
  for (const definition of definitions) {
    const name = (definition as { name?: unknown }).name;
    if (typeof name !== 'string') continue;
    const description = idsDescription(definition);
    if (description === REDACTION_IDS_DESCRIPTION) redaction ??= name;
    else if (description === RETRIEVAL_IDS_DESCRIPTION) retrieval ??= name;
  }
  return { ...(redaction !== undefined ? { redaction } : {}), ...(retrieval !== undefined ? { retrieval } : {}) };
}
