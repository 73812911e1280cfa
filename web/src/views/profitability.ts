import { download, get, session } from '../api.ts';
import { drawMarginLine, drawMemberBars } from '../charts.ts';
import { plotValue } from '../money.ts';
import { PRESETS, isDate, presetRange, type Preset, type Range } from '../ranges.ts';
import type { MetricsRow, Profitability, Series } from '../types.ts';
import { h, notice, replace, table } from '../ui.ts';
import type { ViewContext } from './context.ts';
import {
  METRIC_LABELS,
  SHOWN,
  looseMoney,
  metricColumns,
  summaryCards,
  warnings,
} from './profit-parts.ts';

/** Members per page of the report. */
const PER_PAGE = 25;

/** What the view shows, kept in the URL's hash so a reload or a link shows the same. */
interface State {
  preset: Preset | 'custom';
  from?: string | undefined;
  to?: string | undefined;
  userId?: string | undefined;
  projectId?: string | undefined;
  clientId?: string | undefined;
  page: number;
}

function readState(): State {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const preset = params.get('range');
  const page = Number(params.get('page') ?? '1');
  return {
    preset:
      preset === 'custom' || PRESETS.some((p) => p.value === preset)
        ? (preset as State['preset'])
        : 'this-month',
    from: params.get('from') ?? undefined,
    to: params.get('to') ?? undefined,
    userId: params.get('userId') ?? undefined,
    projectId: params.get('projectId') ?? undefined,
    clientId: params.get('clientId') ?? undefined,
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

function writeState(state: State): void {
  const params = new URLSearchParams();
  params.set('range', state.preset);
  if (state.preset === 'custom') {
    params.set('from', state.from ?? '');
    params.set('to', state.to ?? '');
  }
  for (const key of ['userId', 'projectId', 'clientId'] as const)
    if (state[key]) params.set(key, state[key]);
  if (state.page > 1) params.set('page', String(state.page));
  location.hash = `#/profitability?${params.toString()}`;
}

/** Names for the filters: members, projects, clients (first 200 of each, by name). */
interface Choices {
  members: { id: string; name: string }[];
  projects: { id: string; name: string }[];
  clients: { id: string; name: string }[];
}

let choices: Promise<Choices> | undefined;
let choicesToken: string | null = null;

function loadChoices(token: string | null): Promise<Choices> {
  if (choices && choicesToken === token) return choices;
  choicesToken = token;
  const names = async (path: string, query: Record<string, string | number>, id = 'id') =>
    (await get<Record<string, string>[]>(path, { limit: 200, ...query })).data.map((r) => ({
      id: r[id]!,
      name: r.name!,
    }));
  choices = Promise.all([
    names('/team-payouts/payees', { sort: 'name' }, 'userId'),
    names('/projects', { sort: 'name' }),
    names('/clients', { sort: 'name' }),
  ]).then(([members, projects, clients]) => ({ members, projects, clients }));
  choices.catch(() => (choices = undefined));
  return choices;
}

/**
 * The workspace's current month (YYYY-MM-01) as the API last reported it to this token. A
 * drawing starts from it instead of asking first, which would put a request before the
 * report's; it asks again once drawn (`renderProfitability`).
 */
let knownMonth: { token: string | null; from: string } | undefined;

/** The workspace's current month, from the API's default range (its time zone's month). */
async function askCurrentMonth(context: ViewContext): Promise<string> {
  const answer = await get<Profitability>('/team-payouts/profitability', {
    perPage: 1,
    projects: 'none',
  });
  context.seen(answer.dataAsOf);
  knownMonth = { token: session.token(), from: answer.data.from };
  return answer.data.from;
}

/** The profitability view: range, filters, figures, charts, members and their projects. */
export async function renderProfitability(context: ViewContext): Promise<void> {
  const state = readState();
  const remembered = knownMonth?.token === session.token() ? knownMonth.from : undefined;
  const currentMonth = remembered ?? (await askCurrentMonth(context));
  if (!context.current()) return;
  let range: Range;
  if (state.preset === 'custom') {
    if (
      !state.from ||
      !state.to ||
      !isDate(state.from) ||
      !isDate(state.to) ||
      state.from > state.to
    ) {
      replace(
        context.main,
        h('h1', {}, 'Profitability'),
        controls(state, await loadChoices(session.token()), currentMonth),
        notice('error', 'range-error', 'Choose two real dates, the first not after the second.'),
      );
      return;
    }
    range = { from: state.from, to: state.to };
  } else range = presetRange(state.preset, currentMonth);

  const filters = { userId: state.userId, projectId: state.projectId, clientId: state.clientId };
  // The page without its members' projects (a member's projects come with its drill-down) and
  // the margin series, at once: the view is drawn from these two answers.
  const [answer, series, names] = await Promise.all([
    get<Profitability>('/team-payouts/profitability', {
      from: range.from,
      to: range.to,
      ...filters,
      page: state.page,
      perPage: PER_PAGE,
      projects: 'none',
    }),
    get<Series>('/team-payouts/profitability/series', {
      from: range.from,
      to: range.to,
      ...filters,
    }),
    loadChoices(session.token()),
  ]);
  if (!context.current()) return;
  context.seen(answer.dataAsOf);
  context.seen(series.dataAsOf);
  const report = answer.data;
  const key = JSON.stringify([session.token(), state, currentMonth]);
  const parts: Part[] = [
    {
      name: 'controls',
      text: JSON.stringify(names),
      draw: () => controls(state, names, currentMonth),
    },
    {
      name: 'range',
      text: JSON.stringify([report.from, report.to, report.baseCurrency]),
      draw: () =>
        h(
          'p',
          {
            class: 'range',
            'data-testid': 'shown-range',
            'data-from': report.from,
            'data-to': report.to,
          },
          `${report.from} to ${report.to}, in ${report.baseCurrency}`,
        ),
    },
    {
      name: 'figures',
      text: JSON.stringify({ ...report, members: undefined }),
      draw: () => h('div', {}, summaryCards(report, 'profitability-summary'), warnings(report)),
    },
    {
      name: 'charts',
      text: JSON.stringify([report.members, series.data]),
      draw: () => charts(report, series.data),
    },
    {
      name: 'members',
      text: JSON.stringify([report.members, report.memberTotal, report.page]),
      draw: () =>
        h(
          'section',
          { 'aria-labelledby': 'members-h' },
          h('h2', { id: 'members-h' }, `Members (${report.memberTotal})`),
          membersTable(report, filters, context),
          pager(state, report),
        ),
    },
    {
      name: 'loose',
      text: JSON.stringify([report.unallocatedRevenue, report.unreconciledReceipts]),
      draw: () =>
        h(
          'section',
          { 'aria-labelledby': 'loose-h' },
          h('h2', { id: 'loose-h' }, 'Money not matched to work'),
          looseMoney(report),
        ),
    },
    {
      name: 'exports',
      text: JSON.stringify(range),
      draw: () =>
        h(
          'section',
          { 'aria-labelledby': 'exports-h' },
          h('h2', { id: 'exports-h' }, 'Exports of this range'),
          exportButtons(range, context),
        ),
    },
  ];
  drawParts(context.main, key, parts);
  context.main.dataset.drawnFrom = answer.dataAsOf ?? '';
  performance.mark('ledgerline:drawn');
  // A remembered month may have turned since (the workspace's midnight): asked again once the
  // view is complete, and a new month draws it again.
  if (remembered !== undefined && (await askCurrentMonth(context)) !== remembered)
    if (context.current()) await renderProfitability(context);
}

/** A part of the view: what it is drawn from (as text), and how. */
interface Part {
  name: string;
  text: string;
  draw: () => HTMLElement;
}

/** What is on screen: the view's key and each part's text and element. */
let onScreen:
  { key: string; parts: Map<string, { text: string; element: HTMLElement }> } | undefined;

/**
 * Draws the view's parts into `main`. The same view drawn again (same token, range, filters and
 * page: a move of the data's freshness) redraws only the parts whose answers changed; the
 * others stay as they are, drill-downs open included. Another view is drawn whole.
 */
function drawParts(main: HTMLElement, key: string, parts: Part[]): void {
  const kept = onScreen?.key === key ? onScreen.parts : undefined;
  const still =
    kept !== undefined &&
    main.querySelector(':scope > h1[data-view="profitability"]') !== null &&
    [...kept.values()].every((p) => p.element.parentElement === main);
  if (!still) {
    const drawn = new Map(parts.map((p) => [p.name, { text: p.text, element: part(p) }]));
    replace(
      main,
      h('h1', { 'data-view': 'profitability' }, 'Profitability'),
      ...[...drawn.values()].map((p) => p.element),
    );
    onScreen = { key, parts: drawn };
    return;
  }
  for (const p of parts) {
    const old = kept.get(p.name)!;
    if (old.text === p.text) continue;
    const element = part(p);
    old.element.replaceWith(element);
    kept.set(p.name, { text: p.text, element });
  }
}

/** A part's element, named for the checks of what was redrawn. */
function part(p: Part): HTMLElement {
  const element = p.draw();
  element.dataset.part = p.name;
  return element;
}

/** The member bars and the margin line, drawn together. */
function charts(report: Profitability, series: Series): HTMLElement {
  const bars = h('div', {
    class: 'chart',
    'data-testid': 'member-bars',
    role: 'img',
    'aria-label': 'Billed, collected, compensation cost and margin per member',
  });
  const line = h('div', {
    class: 'chart',
    'data-testid': 'margin-line',
    role: 'img',
    'aria-label': 'Margin % per month',
  });
  const section = h(
    'section',
    { 'aria-labelledby': 'charts-h', class: 'charts' },
    h('h2', { id: 'charts-h', class: 'visually-hidden' }, 'Charts'),
    h('figure', {}, bars, h('figcaption', {}, `Per member, ${report.baseCurrency}`)),
    h('figure', {}, line, h('figcaption', {}, 'Margin % per month')),
  );
  drawMemberBars(
    bars,
    report.members.map((m) => m.name ?? '–'),
    SHOWN.map((metric) => ({
      name: METRIC_LABELS[metric],
      values: report.members.map((m) => plotValue(m[metric])),
    })),
    report.baseCurrency,
  );
  const percents = series.points.map((p) => p.marginPercent);
  drawMarginLine(
    line,
    series.points.map((p) => p.from.slice(0, 7)),
    percents.map(plotValue),
  );
  line.dataset.state = 'drawn';
  line.dataset.values = JSON.stringify(percents);
  return section;
}

function controls(state: State, names: Choices, currentMonth: string): HTMLElement {
  const select = (
    id: string,
    label: string,
    options: { value: string; label: string }[],
    value: string | undefined,
  ) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      h(
        'select',
        { id, name: id },
        ...options.map((o) =>
          h('option', { value: o.value, selected: o.value === (value ?? '') }, o.label),
        ),
      ),
    );
  const everyone = (list: { id: string; name: string }[], all: string) => [
    { value: '', label: all },
    ...list.map((x) => ({ value: x.id, label: x.name })),
  ];
  const custom = state.preset === 'custom';
  const fallback = presetRange('this-month', currentMonth);
  const form = h(
    'form',
    {
      class: 'controls',
      'data-testid': 'profitability-controls',
      'aria-label': 'Range and filters',
    },
    select('range', 'Range', [...PRESETS, { value: 'custom', label: 'Two days…' }], state.preset),
    h(
      'div',
      { class: 'field', hidden: !custom },
      h('label', { for: 'from' }, 'From'),
      h('input', { id: 'from', name: 'from', type: 'date', value: state.from ?? fallback.from }),
    ),
    h(
      'div',
      { class: 'field', hidden: !custom },
      h('label', { for: 'to' }, 'To'),
      h('input', { id: 'to', name: 'to', type: 'date', value: state.to ?? fallback.to }),
    ),
    select('userId', 'Member', everyone(names.members, 'All members'), state.userId),
    select('projectId', 'Project', everyone(names.projects, 'All projects'), state.projectId),
    select('clientId', 'Client', everyone(names.clients, 'All clients'), state.clientId),
    h('button', { type: 'submit' }, 'Show'),
  );
  const apply = () => {
    const data = new FormData(form);
    const text = (name: string) => (data.get(name) as string | null) || undefined;
    writeState({
      preset: (text('range') ?? 'this-month') as State['preset'],
      from: text('from'),
      to: text('to'),
      userId: text('userId'),
      projectId: text('projectId'),
      clientId: text('clientId'),
      page: 1,
    });
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply();
  });
  // A preset or a filter applies at once; the two days wait for "Show".
  form.addEventListener('change', (event) => {
    const target = event.target as HTMLElement;
    if (target.id === 'range') {
      const isCustom = (target as HTMLSelectElement).value === 'custom';
      for (const input of form.querySelectorAll<HTMLElement>('#from, #to'))
        input.parentElement!.hidden = !isCustom;
      if (isCustom) return;
    }
    if (target.id === 'from' || target.id === 'to') return;
    apply();
  });
  return form;
}

/** The filters of the view, which a member's drill-down keeps. */
interface Filters {
  userId: string | undefined;
  projectId: string | undefined;
  clientId: string | undefined;
}

/** The members of the page, each with a button that shows their projects. */
function membersTable(report: Profitability, filters: Filters, context: ViewContext): HTMLElement {
  const columns = metricColumns(report.baseCurrency);
  const wrap = table(
    `Members ${report.from} to ${report.to}, ${report.baseCurrency}`,
    [{ key: 'name', label: 'Member', text: (r: MetricsRow) => r.name ?? '–' }, ...columns],
    report.members,
    { testid: 'members', empty: 'No work in this range.' },
  );
  const rows = wrap.querySelectorAll('tbody tr');
  report.members.forEach((member, i) => {
    const row = rows[i] as HTMLTableRowElement | undefined;
    if (!row) return;
    row.dataset.userId = member.userId ?? '';
    const cell = row.cells[0]!;
    const button = h(
      'button',
      {
        type: 'button',
        class: 'drill',
        'aria-expanded': 'false',
        'data-testid': 'drill',
        'aria-label': `Projects of ${member.name ?? 'this member'}`,
      },
      '▸',
    );
    button.addEventListener(
      'click',
      () => void toggleProjects(row, member, report, filters, button, context),
    );
    cell.prepend(button);
  });
  return wrap;
}

/**
 * Opens or closes a member's projects: its drill-down, the report narrowed to the member (and
 * the view's filters), asked for when opened.
 */
async function toggleProjects(
  row: HTMLTableRowElement,
  member: MetricsRow,
  report: Profitability,
  filters: Filters,
  button: HTMLButtonElement,
  context: ViewContext,
): Promise<void> {
  const open = button.getAttribute('aria-expanded') === 'true';
  const next = row.nextElementSibling;
  if (next?.classList.contains('projects')) next.remove();
  if (open) {
    button.setAttribute('aria-expanded', 'false');
    button.textContent = '▸';
    return;
  }
  button.setAttribute('aria-expanded', 'true');
  button.textContent = '▾';
  const holder = h('td', { colspan: String(row.cells.length) }, 'Loading projects…');
  const line = h('tr', { class: 'projects' }, holder);
  row.after(line);
  let projects: MetricsRow[];
  try {
    const answer = await get<Profitability>('/team-payouts/profitability', {
      from: report.from,
      to: report.to,
      ...filters,
      userId: member.userId ?? undefined,
    });
    context.seen(answer.dataAsOf);
    projects = answer.data.members[0]?.projects ?? [];
  } catch (error) {
    holder.textContent = '';
    context.failed(error);
    return;
  }
  if (!line.isConnected) return;
  const columns = metricColumns(report.baseCurrency);
  replace(
    holder,
    table(
      `Projects of ${member.name ?? 'this member'}`,
      [
        { key: 'name', label: 'Project', text: (r: MetricsRow) => r.projectName ?? 'No project' },
        ...columns,
      ],
      projects,
      { testid: 'member-projects', empty: 'No projects.' },
    ),
  );
}

function pager(state: State, report: Profitability): HTMLElement {
  const pages = Math.max(1, Math.ceil(report.memberTotal / report.perPage));
  const go = (page: number) => writeState({ ...state, page });
  return h(
    'div',
    { class: 'pager' },
    h(
      'button',
      {
        type: 'button',
        disabled: report.page <= 1,
        'data-testid': 'members-previous',
        onclick: () => go(report.page - 1),
      },
      'Previous page',
    ),
    h('span', { class: 'page-no' }, `Page ${report.page} of ${pages}`),
    h(
      'button',
      {
        type: 'button',
        disabled: report.page >= pages,
        'data-testid': 'members-next',
        onclick: () => go(report.page + 1),
      },
      'Next page',
    ),
  );
}

/** Download buttons: the reconciliation exports of the range shown, CSV and Parquet. */
function exportButtons(range: Range, context: ViewContext): HTMLElement {
  const reports = [
    ['profitability-members', 'Profitability per member'],
    ['profitability-projects', 'Profitability per project'],
    ['time-entries', 'Time entries'],
    ['bills', 'Bills'],
    ['payments', 'Payments'],
    ['unpaid-time', 'Unpaid time'],
  ] as const;
  const status = h('p', { 'aria-live': 'polite', 'data-testid': 'export-status' });
  const save = async (report: string, format: 'csv' | 'parquet') => {
    status.textContent = `Preparing ${report}.${format}…`;
    try {
      const file = await download(`/exports/${report}`, { format, from: range.from, to: range.to });
      const link = h('a', { href: URL.createObjectURL(file.blob), download: file.name });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      status.textContent = `Saved ${file.name}.`;
    } catch (error) {
      status.textContent = '';
      context.failed(error);
    }
  };
  return h(
    'div',
    { class: 'exports', 'data-testid': 'exports' },
    h(
      'ul',
      {},
      ...reports.map(([report, label]) =>
        h(
          'li',
          {},
          h('span', {}, label),
          ...(['csv', 'parquet'] as const).map((format) =>
            h(
              'button',
              {
                type: 'button',
                'data-testid': `export-${report}-${format}`,
                onclick: () => void save(report, format),
              },
              format === 'csv' ? 'CSV' : 'Parquet',
            ),
          ),
        ),
      ),
    ),
    status,
  );
}
