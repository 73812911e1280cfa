import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { apiRequest, type Body } from '../support/api-request.ts';
import { violations } from '../support/axe.ts';
import {
  DESKTOP,
  PHONE,
  launchBrowser,
  listen,
  newPage,
  screenshot,
  signIn,
} from '../support/browser.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { TOKENS, smallSnapshot } from '../support/small-snapshot.ts';
import {
  dropWebhookSlots,
  startReceiver,
  startWebhookNode,
  type Receiver,
  type WebhookNode,
} from '../support/webhook-node.ts';

/**
 * The dashboard's Webhooks view in a real browser, against a server whose producer and sender
 * run as on a node (docs/webhooks.md): an endpoint added through the form, pointing at a
 * receiver inside the test, its secret shown once, a write's delivery appearing in the list,
 * a replay, the API's refusals shown beside the form, and a token without write scope told why.
 */

/** Typed into the form as a person would: commas, quotes, a backslash, a non-BMP character. */
const DESCRIPTION = 'Ops, "alerts" \\ 🚀';

/** The cells of the table `testid`'s body rows, by their data-key: text and data-value. */
async function rows(page: Page, testid: string) {
  return page
    .getByTestId(testid)
    .evaluate((table) =>
      [...table.querySelectorAll(':scope > tbody > tr')].map((tr) =>
        Object.fromEntries(
          [...(tr as HTMLTableRowElement).cells]
            .filter((cell) => cell.dataset.key !== undefined)
            .map((cell) => [
              cell.dataset.key!,
              { text: cell.textContent ?? '', value: cell.dataset.value ?? null },
            ]),
        ),
      ),
    );
}

/**
 * The page's console errors, less Chromium's own line for each API answer of 4xx the test
 * asks for (`Failed to load resource: … status of 422`): the page shows those answers.
 */
function unexpected(errors: string[], statuses: number[]): string[] {
  return errors.filter(
    (e) =>
      !statuses.some((s) =>
        e.startsWith(`Failed to load resource: the server responded with a status of ${s} `),
      ),
  );
}

/** The seconds-long local time a datetime-local field takes (the page runs in UTC). */
const localSeconds = (date: Date) => date.toISOString().slice(0, 19);

describe('dashboard webhooks view', () => {
  let harness: Harness;
  let browser: Browser;
  let base: string;
  let receiver: Receiver;
  let receiverBase: string;
  let node: WebhookNode;

  beforeAll(async () => {
    harness = await createHarness({ dashboard: true, webhookAllowPrivate: true });
    await harness.importObject(smallSnapshot());
    await harness.sync();
    receiver = await startReceiver();
    receiverBase = receiver.base;
    // The node's producer and sender, as src/cli/serve.ts runs them, private targets allowed.
    node = startWebhookNode(harness.pool, {
      node: 'dashboard_test',
      allowPrivate: true,
      pollMs: 50,
      attemptTimeoutMs: 2000,
    });
    base = await listen(harness);
    browser = await launchBrowser();
    // The producer streams its slot before the test writes: events start from it.
    const deadline = Date.now() + 20_000;
    while (!node.producer.metrics.producing) {
      if (Date.now() > deadline) throw new Error('the webhook producer did not start in 20 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  afterAll(async () => {
    await browser?.close();
    await node?.stop();
    receiver?.close();
    if (harness) {
      await dropWebhookSlots(harness.pool);
      await harness.close();
    }
  });

  it('adds an endpoint through the form, shows its secret once, its deliveries and a replay', async () => {
    const { context, page, errors } = await newPage(browser, DESKTOP, { bypassCSP: true });
    await signIn(page, base, TOKENS.owner);
    await page.getByTestId('overview-summary').waitFor();
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByTestId('webhook-form').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Webhooks');
    expect(await rows(page, 'webhooks')).toEqual([{}]);
    expect(await page.getByTestId('webhooks').innerText()).toContain('No endpoints yet.');

    const formError = page.getByTestId('webhook-form-error');
    const submit = page.getByRole('button', { name: 'Add endpoint' });

    // A URL the API refuses: its 422 beside the form and beside the field, in words.
    await page.getByLabel('URL', { exact: true }).fill('ftp://127.0.0.1/hooks');
    await submit.click();
    await formError.waitFor();
    const refusedUrl = await formError.innerText();
    expect(refusedUrl).toContain('The endpoint was not added.');
    expect(refusedUrl).toContain('Some values are invalid. (422 validation_failed)');
    expect(refusedUrl).toContain('URL: must be an http or https URL');
    expect(refusedUrl).not.toMatch(/\bat \S+:\d+|Error:|\{|\}/);
    expect(await page.locator('#webhook-url-error').innerText()).toBe(
      'must be an http or https URL',
    );
    expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    // An unknown event type: named, with the known ones, beside the events field.
    await page.getByLabel('URL', { exact: true }).fill(`${receiverBase}/dashboard`);
    await page.getByLabel('Events (optional)').fill('client.created, client.exploded');
    await formError.evaluate((el) => el.setAttribute('data-stale', ''));
    await submit.click();
    await page.locator('[data-testid="webhook-form-error"]:not([data-stale])').waitFor();
    const eventsError = await page.locator('#webhook-events-error').innerText();
    expect(eventsError).toContain('names unknown event types: client.exploded');
    expect(eventsError).toContain('known: client.created, client.updated');
    expect(await page.locator('#webhook-url-error').isHidden()).toBe(true);
    expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    expect(await violations(page)).toEqual([]);

    // The endpoint as a person adds it: every event type, a description with awkward characters.
    await page.getByLabel('Events (optional)').fill('');
    await page.getByLabel('Description (optional)').fill(DESCRIPTION);
    await submit.click();
    const secretNotice = page.getByTestId('webhook-secret-notice');
    await secretNotice.waitFor();
    const secret = await page.getByTestId('webhook-secret').innerText();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await secretNotice.innerText()).toContain('will not be shown again');
    expect(await formError.count()).toBe(0);
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe('');

    const listed = (
      await apiRequest(harness.app, { method: 'GET', path: '/webhooks', token: TOKENS.owner })
    ).body.data as Body[];
    expect(listed).toHaveLength(1);
    const endpoint = listed[0]!;
    expect(endpoint).toMatchObject({
      url: `${receiverBase}/dashboard`,
      description: DESCRIPTION,
      events: null,
    });
    expect(JSON.stringify(listed)).not.toContain(secret);
    const row = page.locator(`[data-testid="webhook-row"][data-id="${endpoint.id}"]`);
    await row.waitFor();
    expect(await rows(page, 'webhooks')).toEqual([
      {
        url: { text: `${receiverBase}/dashboard`, value: null },
        description: { text: DESCRIPTION, value: null },
        events: { text: 'All events', value: null },
        status: { text: 'Active', value: 'active' },
      },
    ]);
    // The new endpoint is the one selected: its attempts, none yet.
    const detail = page.locator(`[data-testid="webhook-detail"][data-id="${endpoint.id}"]`);
    await detail.waitFor();
    expect(await page.getByTestId('deliveries').innerText()).toContain('No attempts yet.');
    await screenshot(page, 'webhooks-added');

    // Shown once: another view and back, and the secret is nowhere on the page.
    await page.getByRole('link', { name: 'Payouts', exact: true }).click();
    await page.getByTestId('unpaid').waitFor();
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await row.waitFor();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await row.getByRole('button', { name: `Show deliveries to ${receiverBase}/dashboard` }).click();
    await detail.waitFor();

    // A write through the API: its event reaches the receiver, signed with the secret shown,
    // and its attempt appears in the list on its own (the view reads it again), status 200.
    const before = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000);
    const created = await apiRequest(harness.app, {
      method: 'POST',
      path: '/clients',
      token: TOKENS.owner,
      body: { name: 'Hooked from the dashboard test' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const delivered = detail.locator('[data-testid="delivery-row"]', {
      has: page.locator('[data-key="result"][data-value="200"]'),
    });
    await delivered.first().waitFor({ timeout: 30_000 });
    const [attempt] = await rows(page, 'deliveries');
    expect(attempt!.type!.text).toBe('client.created');
    expect(attempt!.result).toEqual({ text: '200', value: '200' });
    expect(attempt!.duration!.text).toMatch(/^\d+ ms$/);
    expect(attempt!.time!.value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(attempt!.time!.value!)).toBeGreaterThanOrEqual(before.getTime());
    const eventId = attempt!.eventId!.text;
    expect(eventId).toMatch(/^msg_[a-z2-7]{26}$/);
    const first = receiver.received.filter((r) => r.path === '/dashboard');
    expect(first.map((r) => r.headers['webhook-id'])).toEqual([eventId]);
    const body = new Webhook(secret).verify(first[0]!.body, first[0]!.headers) as Body;
    expect(body.type).toBe('client.created');
    expect(body.data).toEqual(created.body.data);

    // Replay since just before the write: the event again, under its id, a second attempt.
    await detail.getByLabel('Replay since').fill(localSeconds(before));
    await detail.getByRole('button', { name: 'Replay' }).click();
    const replayed = page.getByTestId('webhook-action-done');
    await replayed.waitFor();
    expect(await replayed.innerText()).toMatch(/^1 event since .+ queued to be sent again/);
    await delivered.nth(1).waitFor({ timeout: 30_000 });
    const attempts = await rows(page, 'deliveries');
    expect(attempts.map((a) => [a.type!.text, a.eventId!.text, a.result!.value])).toEqual([
      ['client.created', eventId, '200'],
      ['client.created', eventId, '200'],
    ]);
    expect(
      receiver.received.filter((r) => r.path === '/dashboard').map((r) => r.headers['webhook-id']),
    ).toEqual([eventId, eventId]);
    expect(await violations(page)).toEqual([]);
    await screenshot(page, 'webhooks-deliveries');

    // Disabled, then enabled again.
    await detail.getByRole('button', { name: 'Disable' }).click();
    await page.locator('[data-key="status"][data-value="disabled"]').waitFor();
    expect(await row.locator('[data-key="status"]').innerText()).toBe('Disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.locator('[data-key="status"][data-value="active"]').waitFor();

    // Deleted only when confirmed.
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(dialogs).toEqual([
      `Delete the endpoint ${receiverBase}/dashboard? Its queued deliveries and their log go with it.`,
    ]);
    expect(await row.count()).toBe(1);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`Deleted the endpoint ${receiverBase}/dashboard.`).waitFor();
    expect(await row.count()).toBe(0);
    expect(await detail.count()).toBe(0);
    expect(
      (await apiRequest(harness.app, { method: 'GET', path: '/webhooks', token: TOKENS.owner }))
        .body.data,
    ).toEqual([]);

    expect(unexpected(errors, [422])).toEqual([]);
    await context.close();
  });

  it('tells a token without the write scope that webhooks need it, with the API’s answer', async () => {
    const { context, page, errors } = await newPage(browser, PHONE);
    // The Admin token of the small workspace has read scope only.
    await signIn(page, base, TOKENS.admin);
    await page.getByTestId('overview-summary').waitFor();
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    const refusal: Locator = page.getByTestId('webhooks-refusal');
    await refusal.waitFor();
    const text = await refusal.innerText();
    expect(text).toContain('needs a token with the write scope; this one has read scope only');
    expect(text).toContain(
      'The API answered: Your token does not allow this action. (403 forbidden_scope)',
    );
    expect(await page.getByTestId('webhook-form').count()).toBe(0);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    await screenshot(page, 'webhooks-refusal-phone');
    expect(unexpected(errors, [403])).toEqual([]);
    await context.close();
  });
});
