import { ApiError, get, send } from '../api.ts';
import type { Pagination, WebhookAttempt, WebhookEndpoint, WebhookWithSecret } from '../types.ts';
import { h, notice, replace } from '../ui.ts';
import type { ViewContext } from './context.ts';

// The webhooks view (docs/dashboard.md, "Webhooks"): the workspace's endpoints, a form to add
// one (its secret shown once), and the selected endpoint's delivery attempts with a replay.
// Every route it calls is for Owner and Admin tokens with the write scope (docs/webhooks.md).
// It reads the store, not the read model, so a move of the data does not draw it again: that
// would take away a secret on screen (main.ts draws it only when it is opened).

/** Attempts shown of the selected endpoint, newest first. */
const ATTEMPT_ROWS = 25;
/** How often the selected endpoint's attempts are read again while the view is shown. */
const REFRESH_MS = 3_000;
/** Pages of endpoints read at most (a workspace has a handful). */
const MAX_PAGES = 20;

/** The form's fields, by the names the API's 422 gives them. */
const FIELDS = { url: 'URL', description: 'Description', events: 'Events' } as const;
type Field = keyof typeof FIELDS;

export async function renderWebhooks(context: ViewContext): Promise<void> {
  let endpoints: WebhookEndpoint[];
  try {
    endpoints = await listEndpoints();
  } catch (error) {
    if (!context.current()) return;
    if (error instanceof ApiError && error.status === 403) return refuse(context, error);
    throw error;
  }
  if (!context.current()) return;

  let selected: string | undefined;
  const listHolder = h('div', {});
  const listStatus = h('div', { 'aria-live': 'polite' });
  const detailHolder = h('div', {});

  /** Draws the list, and the selected endpoint's details below it (none: nothing). */
  const drawList = () => {
    if (!endpoints.some((e) => e.id === selected)) selected = undefined;
    replace(listHolder, endpointsTable(endpoints, selected, select));
    const endpoint = endpoints.find((e) => e.id === selected);
    replace(detailHolder, endpoint ? details(endpoint) : null);
  };
  const reload = async () => {
    endpoints = await listEndpoints();
    if (context.current()) drawList();
  };
  const select = (id: string) => {
    selected = id;
    drawList();
    document.getElementById('deliveries-h')?.focus();
  };

  /** The selected endpoint: its switch, its removal, its replay and its attempts. */
  const details = (endpoint: WebhookEndpoint): HTMLElement => {
    const attempts = h('div', {});
    let drawn = '';
    const loadAttempts = async () => {
      const answer = await get<WebhookAttempt[]>(`/webhooks/${endpoint.id}/deliveries`, {
        limit: ATTEMPT_ROWS,
      });
      const text = JSON.stringify(answer.data);
      // Drawn again only when it changed: a refresh with nothing new leaves the table as it is.
      if (text === drawn || !attempts.isConnected) return;
      drawn = text;
      replace(attempts, attemptsTable(answer.data));
    };
    const panel = h(
      'section',
      {
        'aria-labelledby': 'deliveries-h',
        'data-testid': 'webhook-detail',
        'data-id': endpoint.id,
      },
      h('h2', { id: 'deliveries-h', tabindex: '-1' }, `Deliveries to ${endpoint.url}`),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            'data-testid': 'webhook-toggle',
            onclick: () =>
              void act(listStatus, context, async () => {
                await send<WebhookEndpoint>('PATCH', `/webhooks/${endpoint.id}`, {
                  enabled: !endpoint.enabled,
                });
                await reload();
                return endpoint.enabled
                  ? `Disabled ${endpoint.url}: no events are sent to it until it is enabled again.`
                  : `Enabled ${endpoint.url}: events are sent to it again.`;
              }),
          },
          endpoint.enabled ? 'Disable' : 'Enable',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            'data-testid': 'webhook-delete',
            onclick: () => {
              const question = `Delete the endpoint ${endpoint.url}? Its queued deliveries and their log go with it.`;
              if (!window.confirm(question)) return;
              void act(listStatus, context, async () => {
                await send<WebhookEndpoint>('DELETE', `/webhooks/${endpoint.id}`);
                selected = undefined;
                await reload();
                return `Deleted the endpoint ${endpoint.url}.`;
              });
            },
          },
          'Delete',
        ),
      ),
      replayForm(endpoint, context, () => void loadAttempts().catch(context.failed)),
      attempts,
    );
    void loadAttempts().catch(context.failed);
    const timer = window.setInterval(() => {
      if (!context.current() || !panel.isConnected) return window.clearInterval(timer);
      if (!document.hidden) void loadAttempts().catch(() => undefined);
    }, REFRESH_MS);
    return panel;
  };

  drawList();
  replace(
    context.main,
    h('h1', {}, 'Webhooks'),
    h(
      'p',
      { class: 'help' },
      'Each committed change of a record is sent, signed, to the endpoints that subscribe to its type, and retried until the receiver answers 2xx. Seeing and changing them takes an Owner or Admin token with the write scope.',
    ),
    h(
      'section',
      { 'aria-labelledby': 'endpoints-h' },
      h('h2', { id: 'endpoints-h' }, 'Endpoints'),
      listStatus,
      listHolder,
    ),
    h(
      'section',
      { 'aria-labelledby': 'add-h' },
      h('h2', { id: 'add-h' }, 'Add an endpoint'),
      addForm(context, async (created) => {
        endpoints = await listEndpoints();
        if (!context.current()) return;
        selected = created.id;
        drawList();
      }),
    ),
    detailHolder,
  );
}

/** Every endpoint of the workspace, oldest first, following the cursors. */
async function listEndpoints(): Promise<WebhookEndpoint[]> {
  const all: WebhookEndpoint[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await get<WebhookEndpoint[]>('/webhooks', { limit: 100, cursor });
    all.push(...answer.data);
    cursor = (answer.body.pagination as Pagination | undefined)?.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return all;
}

/** A token the routes refuse (403): what they need, and what the API said. */
function refuse(context: ViewContext, error: ApiError): void {
  const lacksWrite = !context.me.scopes.includes('write');
  replace(
    context.main,
    h('h1', {}, 'Webhooks'),
    notice(
      'warning',
      'webhooks-refusal',
      h(
        'p',
        {},
        lacksWrite
          ? 'Listing and adding webhook endpoints needs a token with the write scope; this one has read scope only. Sign in with an Owner or Admin token with the write scope.'
          : 'Listing and adding webhook endpoints needs an Owner or Admin token with the write scope.',
      ),
      h('p', {}, `The API answered: ${error.message} (${error.status} ${error.code})`),
    ),
  );
}

function time(iso: string): HTMLElement {
  return h('time', { datetime: iso }, new Date(iso).toLocaleString());
}

function statusOf(endpoint: WebhookEndpoint): (Node | string)[] {
  switch (endpoint.status) {
    case 'active':
      return ['Active'];
    case 'failing':
      return endpoint.failingSince ? ['Failing since ', time(endpoint.failingSince)] : ['Failing'];
    case 'disabled':
      return [endpoint.disabledReason ? `Disabled: ${endpoint.disabledReason}` : 'Disabled'];
  }
}

function endpointsTable(
  endpoints: WebhookEndpoint[],
  selected: string | undefined,
  select: (id: string) => void,
): HTMLElement {
  const labels = ['URL', 'Description', 'Events', 'Status', 'Deliveries'];
  const rows = endpoints.length
    ? endpoints.map((e) =>
        h(
          'tr',
          {
            'data-id': e.id,
            'data-testid': 'webhook-row',
            class: e.id === selected ? 'selected' : undefined,
          },
          h('th', { scope: 'row', class: 'url', 'data-key': 'url' }, e.url),
          h('td', { 'data-key': 'description' }, e.description ?? '–'),
          h('td', { 'data-key': 'events' }, e.events === null ? 'All events' : e.events.join(', ')),
          h('td', { 'data-key': 'status', 'data-value': e.status }, ...statusOf(e)),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                'data-testid': 'webhook-select',
                'aria-pressed': e.id === selected ? 'true' : 'false',
                'aria-label': `Show deliveries to ${e.url}`,
                onclick: () => select(e.id),
              },
              'Show deliveries',
            ),
          ),
        ),
      )
    : [
        h(
          'tr',
          {},
          h('td', { colspan: String(labels.length), class: 'empty' }, 'No endpoints yet.'),
        ),
      ];
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Endpoints' },
    h(
      'table',
      { 'data-testid': 'webhooks' },
      h('caption', {}, "The workspace's webhook endpoints, oldest first"),
      h('thead', {}, h('tr', {}, ...labels.map((l) => h('th', { scope: 'col' }, l)))),
      h('tbody', {}, ...rows),
    ),
  );
}

function attemptsTable(attempts: WebhookAttempt[]): HTMLElement {
  const labels = ['Time', 'Event', 'Event ID', 'Result', 'Duration'];
  const rows = attempts.length
    ? attempts.map((a) =>
        h(
          'tr',
          { 'data-testid': 'delivery-row' },
          h(
            'th',
            { scope: 'row', 'data-key': 'time', 'data-value': a.attemptedAt },
            time(a.attemptedAt),
          ),
          h('td', { 'data-key': 'type' }, a.eventType),
          h('td', { 'data-key': 'eventId', class: 'mono' }, a.eventId),
          h(
            'td',
            {
              'data-key': 'result',
              'data-value': a.statusCode === null ? undefined : String(a.statusCode),
              class: a.statusCode !== null && a.statusCode < 300 ? undefined : 'failed',
            },
            a.statusCode !== null
              ? `${a.statusCode}${a.error ? `: ${a.error}` : ''}`
              : `No answer: ${a.error ?? 'unknown error'}`,
          ),
          h(
            'td',
            { 'data-key': 'duration', class: 'num', 'data-value': String(a.durationMs) },
            `${a.durationMs} ms`,
          ),
        ),
      )
    : [
        h(
          'tr',
          {},
          h(
            'td',
            { colspan: String(labels.length), class: 'empty' },
            'No attempts yet. Each write of a record this endpoint subscribes to is sent within seconds.',
          ),
        ),
      ];
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Delivery attempts' },
    h(
      'table',
      { 'data-testid': 'deliveries' },
      h(
        'caption',
        {},
        `The newest ${ATTEMPT_ROWS} attempts, newest first, read again every few seconds`,
      ),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...labels.map((l, i) => h('th', { scope: 'col', class: i === 4 ? 'num' : undefined }, l)),
        ),
      ),
      h('tbody', {}, ...rows),
    ),
  );
}

/**
 * Runs a write and says how it went in `status`: its sentence, or the API's error. A 401
 * signs out, as everywhere.
 */
async function act(
  status: HTMLElement,
  context: ViewContext,
  write: () => Promise<string>,
): Promise<boolean> {
  replace(status);
  try {
    const said = await write();
    replace(status, notice('info', 'webhook-action-done', said));
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) context.failed(error);
    else replace(status, notice('error', 'webhook-action-error', ...problem(error)));
    return false;
  }
}

/** What went wrong, for a person: the API's sentence and fields, or why nothing was sent. */
function problem(error: unknown): HTMLElement[] {
  if (!(error instanceof ApiError)) {
    const why = error instanceof Error ? error.message : String(error);
    return [h('p', {}, `The request could not be sent: ${why}`)];
  }
  const labels: Record<string, string> = FIELDS;
  const fields = Object.entries(error.fields);
  const said = h('p', {}, `${error.message} (${error.status} ${error.code})`);
  if (!fields.length) return [said];
  return [
    said,
    h(
      'ul',
      {},
      ...fields.map(([name, text]) => h('li', {}, `${labels[fieldOf(name)] ?? name}: ${text}`)),
    ),
  ];
}

/** The form field a 422's field path belongs to (`events.0`: events). */
function fieldOf(path: string): string {
  return path.split('.')[0] ?? path;
}

/** The form adding an endpoint; on success, the secret once, and `added` with the endpoint. */
function addForm(
  context: ViewContext,
  added: (endpoint: WebhookWithSecret) => Promise<void>,
): HTMLElement {
  const inputs = {
    url: h('input', {
      id: 'webhook-url',
      name: 'url',
      type: 'url',
      inputmode: 'url',
      autocomplete: 'off',
      spellcheck: 'false',
      required: true,
      placeholder: 'https://example.com/hooks/ledgerline',
    }),
    description: h('input', {
      id: 'webhook-description',
      name: 'description',
      type: 'text',
      maxlength: '500',
    }),
    events: h('input', {
      id: 'webhook-events',
      name: 'events',
      type: 'text',
      autocomplete: 'off',
      spellcheck: 'false',
    }),
  } satisfies Record<Field, HTMLInputElement>;
  const errors = {} as Record<Field, HTMLElement>;
  const help: Partial<Record<Field, string>> = {
    events:
      'Event types separated by commas, such as client.created, invoice.updated. Empty: every type, also those added later.',
  };
  const field = (name: Field, label: string) => {
    errors[name] = h('p', { id: `webhook-${name}-error`, class: 'field-error', hidden: true });
    const helpId = help[name] ? `webhook-${name}-help` : undefined;
    inputs[name].setAttribute(
      'aria-describedby',
      [helpId, `webhook-${name}-error`].filter(Boolean).join(' '),
    );
    return h(
      'div',
      { class: 'field' },
      h('label', { for: inputs[name].id }, label),
      inputs[name],
      helpId ? h('p', { id: helpId, class: 'help' }, help[name]) : null,
      errors[name],
    );
  };
  const submit = h('button', { type: 'submit' }, 'Add endpoint');
  const status = h('div', { 'aria-live': 'polite', 'data-testid': 'webhook-form-status' });
  const clearErrors = () => {
    for (const name of Object.keys(FIELDS) as Field[]) {
      errors[name].textContent = '';
      errors[name].hidden = true;
      inputs[name].removeAttribute('aria-invalid');
    }
  };
  /** The API's refusal: each field's message beside it, and the whole of it below the form. */
  const showErrors = (error: unknown) => {
    if (error instanceof ApiError)
      for (const [path, text] of Object.entries(error.fields)) {
        const name = fieldOf(path);
        if (!(name in FIELDS)) continue;
        const target = errors[name as Field];
        target.textContent = target.textContent ? `${target.textContent} ${text}` : text;
        target.hidden = false;
        inputs[name as Field].setAttribute('aria-invalid', 'true');
      }
    replace(
      status,
      notice(
        'error',
        'webhook-form-error',
        h('p', {}, 'The endpoint was not added.'),
        error instanceof ApiError && error.status === 403
          ? h('p', {}, 'Adding an endpoint needs an Owner or Admin token with the write scope.')
          : null,
        ...problem(error),
      ),
    );
  };
  const form = h(
    'form',
    { class: 'stack-form', 'data-testid': 'webhook-form', novalidate: true },
    field('url', 'URL'),
    field('description', 'Description (optional)'),
    field('events', 'Events (optional)'),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      clearErrors();
      replace(status);
      const events = inputs.events.value
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '');
      const body = {
        url: inputs.url.value.trim(),
        ...(events.length ? { events } : {}),
        ...(inputs.description.value !== '' ? { description: inputs.description.value } : {}),
      };
      submit.disabled = true;
      let data: WebhookWithSecret;
      try {
        data = (await send<WebhookWithSecret>('POST', '/webhooks', body)).data;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return context.failed(error);
        showErrors(error);
        return;
      } finally {
        submit.disabled = false;
      }
      form.reset();
      replace(
        status,
        notice(
          'info',
          'webhook-secret-notice',
          h('p', {}, `Added ${data.url}. Its signing secret:`),
          h('code', { class: 'secret', 'data-testid': 'webhook-secret' }, data.secret),
          h(
            'p',
            { class: 'strong' },
            'It is shown here once and will not be shown again: copy it now into the receiver, which checks each request’s signature with it.',
          ),
        ),
      );
      await added(data).catch(context.failed);
    })();
  });
  return h('div', {}, form, status);
}

/** The replay of the endpoint's events since a time, and how it went. */
function replayForm(
  endpoint: WebhookEndpoint,
  context: ViewContext,
  replayed: () => void,
): HTMLElement {
  const input = h('input', {
    id: 'replay-since',
    name: 'since',
    type: 'datetime-local',
    step: '1',
    required: true,
    'aria-describedby': 'replay-help',
  });
  const status = h('div', { 'aria-live': 'polite', 'data-testid': 'replay-status' });
  const submit = h('button', { type: 'submit' }, 'Replay');
  const form = h(
    'form',
    { class: 'controls', 'data-testid': 'replay-form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'replay-since' }, 'Replay since'), input),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // A datetime-local value is the browser's local time, without a zone: Date reads it so.
    const since = new Date(input.value);
    if (input.value === '' || Number.isNaN(since.getTime())) {
      replace(
        status,
        notice('error', 'webhook-action-error', 'Choose the date and time to replay from.'),
      );
      return;
    }
    submit.disabled = true;
    void act(status, context, async () => {
      const { data } = await send<{ queued: number }>('POST', `/webhooks/${endpoint.id}/replay`, {
        since: since.toISOString(),
      });
      replayed();
      return data.queued === 0
        ? `No event since ${since.toLocaleString()} to send again.`
        : `${data.queued} ${data.queued === 1 ? 'event' : 'events'} since ${since.toLocaleString()} queued to be sent again, each with its original id. Their attempts appear below.`;
    }).finally(() => (submit.disabled = false));
  });
  return h(
    'div',
    {},
    form,
    h(
      'p',
      { id: 'replay-help', class: 'help' },
      'Every event of the workspace since then that this endpoint subscribes to is sent again. The time is in this browser’s time zone.',
    ),
    status,
  );
}
