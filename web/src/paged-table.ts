import { get } from './api.ts';
import type { Pagination } from './types.ts';
import { h, replace, table, type Column } from './ui.ts';

/**
 * A table of a list endpoint, a page at a time, paged with the API's cursors: "Next" follows
 * `pagination.nextCursor`, "Previous" goes back to the cursor the page before was read with.
 */
export function pagedTable<Row>(options: {
  caption: string;
  path: string;
  query: Record<string, string | number | undefined>;
  columns: Column<Row>[];
  testid: string;
  empty: string;
  limit: number;
  seen: (dataAsOf: string | null) => void;
  failed: (error: unknown) => void;
}): HTMLElement {
  const holder = h('div', { class: 'paged', 'data-testid': `${options.testid}-pager` });
  const cursors: (string | undefined)[] = [undefined];
  let index = 0;
  const status = h('span', { class: 'page-no', 'aria-live': 'polite' });

  const load = async () => {
    const cursor = cursors[index];
    const answer = await get<Row[]>(options.path, {
      ...options.query,
      limit: options.limit,
      cursor,
    });
    options.seen(answer.dataAsOf);
    const next = (answer.body.pagination as Pagination | undefined)?.nextCursor ?? null;
    cursors[index + 1] = next ?? undefined;
    const previous = h(
      'button',
      {
        type: 'button',
        disabled: index === 0,
        'data-testid': `${options.testid}-previous`,
        onclick: () => {
          index -= 1;
          void load().catch(options.failed);
        },
      },
      'Previous page',
    );
    const following = h(
      'button',
      {
        type: 'button',
        disabled: next === null,
        'data-testid': `${options.testid}-next`,
        onclick: () => {
          index += 1;
          void load().catch(options.failed);
        },
      },
      'Next page',
    );
    status.textContent = `Page ${index + 1}`;
    replace(
      holder,
      table(options.caption, options.columns, answer.data, {
        testid: options.testid,
        empty: options.empty,
      }),
      h('div', { class: 'pager' }, previous, status, following),
    );
  };
  void load().catch(options.failed);
  return holder;
}
