import type { Figure } from './figures';

/** Figures over the agent kit's model-context builder. */
export const contextFigures: readonly Figure[] = [];
