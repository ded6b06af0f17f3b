/** Placeholder until the subsystem lands. */
export {};
