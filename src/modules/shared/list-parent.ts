import { type PageInput, type Paging, toPaging } from './paging.js';

/**
 * What a list root field (`workflows`, `workflowDeployments`, `workflowExecutions`) hands to its
 * output's `data` and `count`: the input checked and read once, before anything is read from the
 * database, so that a bad input fails the request whichever fields it selects.
 */
export interface ListParent<Filter, Order> {
  readonly filter: Filter;
  readonly order: Order;
  readonly paging: Paging;
}

/**
 * The list prelude: the filter (`filterOf` checks its own bounds first, and may return undefined
 * when nothing can match), then the order (`defaultOrder` when none is given), then the page.
 */
export function listParent<Input extends { orderBy?: Order | null; page?: PageInput | null }, Filter, Order>(
  input: Input,
  filterOf: (input: Input) => Filter,
  defaultOrder: NoInfer<Order>,
): ListParent<Filter, Order> {
  const filter = filterOf(input);
  return { filter, order: input.orderBy ?? defaultOrder, paging: toPaging(input.page) };
}
