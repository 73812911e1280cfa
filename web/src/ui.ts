// Small DOM helpers: elements built with their attributes and children, text always set as
// text (never as HTML), so a name with "<b>" in it shows as typed.

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | boolean | undefined | ((event: Event) => void)>;

/** An element with attributes (`on*` are listeners; booleans set or leave out) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : value);
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children)
    if (child !== null && child !== undefined && child !== false)
      parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
}

/** Replaces what `parent` holds. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A figure card: a label and its value, the raw figure kept in data-value for checks. */
export function card(
  label: string,
  value: string,
  attributes: { raw?: string | undefined; testid: string; tone?: string | undefined },
): HTMLElement {
  return h(
    'div',
    {
      class: `card${attributes.tone ? ` ${attributes.tone}` : ''}`,
      'data-testid': attributes.testid,
      'data-value': attributes.raw,
      // A figure too long for one card's width (past 10^12) takes two, rather than break
      // between its digits.
      'data-long': value.length > 16,
    },
    h('dt', {}, label),
    h('dd', {}, value),
  );
}

export interface Column<Row> {
  label: string;
  /** The cell's text. */
  text(row: Row): string;
  /** The raw value behind the text (a decimal string), for checks. */
  raw?(row: Row): string | null;
  numeric?: boolean;
  key: string;
}

/** A table with a caption, column headers and one row per item; empty: one row saying so. */
export function table<Row>(
  caption: string,
  columns: Column<Row>[],
  rows: Row[],
  options: { testid: string; empty: string },
): HTMLElement {
  const head = h(
    'tr',
    {},
    ...columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : undefined }, c.label)),
  );
  const body = rows.length
    ? rows.map((row) =>
        h(
          'tr',
          {},
          ...columns.map((c, i) =>
            h(
              i === 0 ? 'th' : 'td',
              {
                scope: i === 0 ? 'row' : undefined,
                class: c.numeric ? 'num' : undefined,
                'data-key': c.key,
                'data-value': c.raw?.(row) ?? undefined,
              },
              c.text(row),
            ),
          ),
        ),
      )
    : [h('tr', {}, h('td', { colspan: String(columns.length), class: 'empty' }, options.empty))];
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      { 'data-testid': options.testid },
      h('caption', {}, caption),
      h('thead', {}, head),
      h('tbody', {}, ...body),
    ),
  );
}

/** A message block: information, a warning to see, or an error. */
export function notice(kind: 'info' | 'warning' | 'error', testid: string, ...children: Child[]) {
  return h(
    'div',
    { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status', 'data-testid': testid },
    ...children,
  );
}
