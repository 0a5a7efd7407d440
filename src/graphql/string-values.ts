import { type ASTVisitor, GraphQLError, type ValidationContext } from 'graphql';

/**
 * PostgreSQL `text` cannot hold U+0000: a string argument carrying it would fail in the
 * database as an internal error. It is refused at the edge instead, as a clear input error.
 */
export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** Whether a (coerced) input value holds a string with U+0000 anywhere inside it. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.values(value).some(containsNul);
  }
  return false;
}

/** Validation rule: no string literal of the document holds U+0000 (written as `"\u0000"`). */
export function noNulStringLiteralRule(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      if (node.value.includes('\u0000')) {
        context.reportError(new GraphQLError(`String values ${NUL_MESSAGE}`, { nodes: [node] }));
      }
    },
  };
}
