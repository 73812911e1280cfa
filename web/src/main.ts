import { ApiError, get, session, type Me } from './api.ts';
import { h, notice, replace } from './ui.ts';
import { Freshness } from './freshness.ts';
import { renderOverview } from './views/overview.ts';
import { renderPayouts } from './views/payouts.ts';
import { renderProfitability } from './views/profitability.ts';
import { renderWebhooks } from './views/webhooks.ts';
import type { ViewContext } from './views/context.ts';

// The dashboard: sign-in, then four views (overview, payouts, profitability, webhooks) chosen
// by the URL's hash, each drawn from the public API with the pasted token. When X-Data-As-Of
// moves, the view on screen is drawn again if it shows the read model's data (`follows`): the
// webhooks view reads the store, and drawing it again would take away a secret it shows once.

const VIEWS = {
  overview: { label: 'Overview', render: renderOverview, follows: true },
  payouts: { label: 'Payouts', render: renderPayouts, follows: true },
  profitability: { label: 'Profitability', render: renderProfitability, follows: true },
  webhooks: { label: 'Webhooks', render: renderWebhooks, follows: false },
} as const;
type ViewName = keyof typeof VIEWS;

const root = document.getElementById('app')!;

/**
 * Roles that may read team payouts (docs/contract.md, "Role rules by area": Owner/Admin tokens with
 * read scope).
 */
const PAYOUT_ROLES = new Set<Me['role']>(['OWNER', 'ADMIN']);

const ROLE_NAMES: Record<Me['role'], string> = {
  OWNER: 'Owner',
  ADMIN: 'Admin',
  MANAGER: 'Manager',
  MEMBER: 'Member',
};

function viewOfHash(): ViewName {
  const name = location.hash.replace(/^#\/?/, '').split('?')[0];
  return name && name in VIEWS ? (name as ViewName) : 'overview';
}

/** The sign-in form; `message` says why it is shown again (a revoked token, a bad paste). */
function showSignIn(message?: string): void {
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'token-help',
  });
  const status = h('div', { 'aria-live': 'polite' });
  if (message) replace(status, notice('error', 'signin-error', message));
  const form = h(
    'form',
    { class: 'signin', 'data-testid': 'signin' },
    h('h1', {}, 'Ledgerline'),
    h('label', { for: 'token' }, 'API token'),
    input,
    h(
      'p',
      { id: 'token-help', class: 'help' },
      'Paste an Owner or Admin token with read scope. It is kept in this tab only, until you close it or sign out.',
    ),
    h('button', { type: 'submit' }, 'Sign in'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    session.signIn(token);
    void start();
  });
  replace(root, h('main', { id: 'main' }, form));
  input.focus();
}

/** A signed-in person whose token cannot read team payouts: what it would take. */
function showRefusal(me: Me, text: string, testid: string): void {
  replace(
    root,
    h(
      'main',
      { id: 'main', class: 'refusal' },
      h('h1', {}, me.orgName),
      notice('warning', testid, text),
      h('button', { type: 'button', onclick: () => signOut() }, 'Use another token'),
    ),
  );
}

function signOut(message?: string): void {
  freshness?.stop();
  freshness = undefined;
  session.signOut();
  history.replaceState(null, '', location.pathname);
  showSignIn(message);
}

let freshness: Freshness | undefined;

/** Checks the token (GET /me), then draws the view the URL names. */
async function start(): Promise<void> {
  let me: Me;
  try {
    me = (await get<Me>('/me')).data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401)
      return signOut('This token is not valid or has been revoked. Paste a current one.');
    if (error instanceof ApiError && error.status === 402)
      return signOut(
        'This workspace is not on a plan with API access. The dashboard needs the Agency plan.',
      );
    return signOut(`The API could not be reached: ${(error as Error).message}`);
  }
  if (!PAYOUT_ROLES.has(me.role) || !me.scopes.includes('read'))
    return showRefusal(
      me,
      `This dashboard needs an Owner or Admin token with read scope. Yours is a ${ROLE_NAMES[me.role]} token${me.scopes.includes('read') ? '' : ' without read scope'}: ask an Owner or Admin of ${me.orgName} for one.`,
      'role-refusal',
    );
  if (me.plan !== 'agency')
    return showRefusal(
      me,
      `Team payouts and profitability are part of the Agency plan. ${me.orgName} is on the ${me.plan[0]!.toUpperCase()}${me.plan.slice(1)} plan.`,
      'plan-refusal',
    );
  drawShell(me);
}

function drawShell(me: Me): void {
  const asOf = h('span', { 'data-testid': 'data-as-of' }, '');
  const main = h('main', { id: 'main', tabindex: '-1' });
  const links = Object.entries(VIEWS).map(([name, view]) =>
    h('a', { href: `#/${name}`, 'data-view': name }, view.label),
  );
  replace(
    root,
    h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
    h(
      'header',
      {},
      h('span', { class: 'brand' }, me.orgName),
      h('nav', { 'aria-label': 'Views' }, ...links),
      h('p', { class: 'freshness', 'aria-live': 'polite' }, asOf),
      h('button', { type: 'button', class: 'link', onclick: () => signOut() }, 'Sign out'),
    ),
    main,
  );
  freshness = new Freshness((dataAsOf) => {
    asOf.textContent = dataAsOf ? `Data as of ${new Date(dataAsOf).toLocaleString()}` : '';
    asOf.dataset.value = dataAsOf ?? '';
  });
  let drawing = 0;
  const draw = async (focus: boolean) => {
    const name = viewOfHash();
    const mine = ++drawing;
    for (const link of links)
      link.setAttribute('aria-current', link.dataset.view === name ? 'page' : 'false');
    document.title = `${VIEWS[name].label} · Ledgerline`;
    const context: ViewContext = {
      me,
      main,
      seen: (dataAsOf) => freshness?.seen(dataAsOf),
      current: () => mine === drawing,
      failed: (error) => failed(error, main),
    };
    try {
      await VIEWS[name].render(context);
    } catch (error) {
      context.failed(error);
    }
    if (focus && mine === drawing) main.focus();
  };
  window.onhashchange = () => void draw(true);
  freshness.onChange(() => {
    if (VIEWS[viewOfHash()].follows) void draw(false);
  });
  freshness.start();
  void draw(false);
}

/** An error while drawing: a revoked token goes back to sign-in, anything else is said. */
function failed(error: unknown, main: HTMLElement): void {
  if (error instanceof ApiError && error.status === 401)
    return signOut('Your token was revoked or is no longer valid. Paste a current one.');
  const text =
    error instanceof ApiError
      ? `${error.message} (${error.status} ${error.code})`
      : `Something went wrong: ${(error as Error).message}`;
  main.prepend(notice('error', 'view-error', text));
}

if (session.token()) void start();
else showSignIn();
