import type { DocumentLimits } from '../../src/graphql/document-cache.js';

/** Document limits for a test's own small schema: roomy, so that only what a test asks is refused. */
export const TEST_DOCUMENT_LIMITS: DocumentLimits = {
  maxDepth: 10,
  maxFields: 2000,
  maxSpreads: 500,
  maxMergeWork: 20_000,
  maxAliases: 10,
  maxTokens: 1000,
};
