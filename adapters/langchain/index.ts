/**
 * `context-compression/langchain`: reserved for the LangChain.js adapter. Until it ships, this entry exposes the
 * framework-free engine only, under the same names as the other entries.
 */
export * from '../../src/index.js';
