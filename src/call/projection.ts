import type { Message } from '../transcript/transcript.js';
import type { FoldLayout } from './fold-layout.js';

/** The messages as the model will see them, with their token counts. */
export interface PromptView {
  readonly messages: readonly Message[];
  readonly tokens: readonly number[];
  /** Tool calls whose results were shortened (by relevance) because each alone was too large. */
  readonly truncatedIds: readonly string[];
}

/** What the model would see at a compression point: the edited messages and the token arithmetic of every cut. */
export interface Projection {
  readonly view: PromptView;
  readonly layout: FoldLayout;
}
