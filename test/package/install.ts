/**
 * Global setup of the packed-package tier: one consumer project per run,
 * shared by every test file through `inject('consumer')`, removed at the end.
 */
import type { TestProject } from 'vitest/node';
import { createConsumerProject } from './consumer-project';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory of the consumer project with the packed package installed. */
    consumer: string;
  }
}

/** Installs the package into a consumer project and returns the teardown that removes it. */
export function setup(project: TestProject): () => void {
  const consumer = createConsumerProject();
  project.provide('consumer', consumer.directory);
  return consumer.remove;
}
