/**
 * The mark of a kept answer (src/graphql/kept-answers.ts): a Query field's resolver that answers
 * the very same object while what it was made of is unchanged, and reads of `info` only its
 * selection (`fieldNodes` and `fragments`, as subfieldNames does). Here,
 * below the modules that mark their resolvers and the executor that keeps their renderings.
 */
const KEPT = Symbol('kept answer');

/**
 * Marks a Query field's resolver as answering the very same object for unchanged inputs. Of
 * `info` it may read only `fieldNodes` and `fragments`: resolving ahead, it is given nothing else.
 */
export function keptAnswer<F>(resolve: F): F {
  return Object.assign(resolve as object, { [KEPT]: true }) as F;
}

/** Whether `resolve` was marked by keptAnswer. */
export const isKeptAnswer = (resolve: unknown): boolean =>
  typeof resolve === 'function' && (resolve as { [KEPT]?: true })[KEPT] === true;
