/** How the wrapper reads and runs the methods of a LangChain chat model, whatever its class. */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';

type Method = (this: unknown, ...args: unknown[]) => unknown;

/**
 * A method of a model as a plain function, to run with another `this`: the one cast of the wrapper. LangChain's
 * types cannot give these as one callable type: `streamEvents` and `withStructuredOutput` are overloaded,
 * `_separateRunnableConfigFromCallOptionsCompat` is protected, `bindTools` and `_getModelInstance` (of
 * initChatModel's model) exist on some classes only; all are public functions at run time.
 */
export function methodOf(model: object, name: string): Method | undefined {
  const value: unknown = Reflect.get(model, name);
  return typeof value === 'function' ? (value as Method) : undefined;
}

/** Runs `model`'s own method `name` on `self`: the wrapper, or a copy LangChain made of it. */
export function callOwn(model: object, name: string, self: unknown, args: readonly unknown[]): unknown {
  const method = methodOf(model, name);
  if (!method) throw new TypeError(`the model has no method ${name}`);
  return method.apply(self, [...args]);
}

/**
 * The call options as LangChain's own `streamEvents` parses them for `_streamChatModelEvents`, through its protected
 * method, whose result is `[config, parsed options]` as LangChain declares it.
 */
export function parsedCallOptions(model: BaseChatModel, options: unknown): BaseChatModel['ParsedCallOptions'] {
  const separated = callOwn(model, '_separateRunnableConfigFromCallOptionsCompat', model, [options]);
  return (separated as [unknown, BaseChatModel['ParsedCallOptions']])[1];
}

/** The object in a prototype chain that defines `key`. */
function ownerOf(object: object, key: string): object | null {
  let current: object | null = object;
  while (current && !Object.hasOwn(current, key)) current = Object.getPrototypeOf(current);
  return current;
}

/**
 * True when the model has its own `_streamResponseChunks`: LangChain streams a call only through such a model's
 * chunks. LangChain's own test (not BaseChatModel's stub, which sits beside `_generateUncached`), made without
 * comparing to its class: a second copy of @langchain/core would have another.
 */
export function streamsOwnChunks(model: object): boolean {
  return ownerOf(model, '_streamResponseChunks') !== ownerOf(model, '_generateUncached');
}

/**
 * True when a call streams natively. `model` is the wrapped model, `instance` the object the call runs on.
 */
export function streamsNatively(model: object, instance: BaseChatModel): boolean {
  return !instance.disableStreaming && streamsOwnChunks(model);
}
