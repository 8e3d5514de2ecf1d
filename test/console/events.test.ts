/**
 * The console's events and webhooks pages in headless Chromium: the newest events filtered by
 * type, the subscriptions with their state, and one subscription's deliveries, retried with the
 * button (a POST through the console's CSRF check). No page shows a signing secret.
 */
import type { Server } from 'node:http';
import { sql } from 'kysely';
import pino from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deliverer } from '../../src/webhooks/deliver.js';
import { addSubscription } from '../../src/webhooks/subscriptions.js';
import { findChromium, photograph, serveConsole, widerThanWindow } from '../support/browser.js';
import { eventsSettled } from '../support/events.js';
import { useTestDatabase } from '../support/test-database.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

const CHROMIUM = findChromium('web console browser tests');
const MASTER = 'a test master secret of more than 32 characters';
const database = useTestDatabase();
const db = () => database.current.handle.db;
let server: Server;
let base: string;
let browser: Browser;
let page: Page;
let receiver: Receiver;
let secret: string;

beforeAll(async () => {
  if (!CHROMIUM) return;
  receiver = await startReceiver();
  receiver.answer = () => 500;
  ({ server, base } = await serveConsole(db()));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });

  ({ secret } = await addSubscription(
    db(),
    { url: receiver.url, eventTypes: ['client.changed'], accountId: null },
    MASTER,
  ));
  await sql`
    insert into changes (account_id, entity, entity_id, op, changed_fields, before, after)
    values (${database.current.accountId}, 'clients', '42', 'update', '{city}', '{"clientnr": 42, "city": "Old"}', '{"clientnr": 42, "city": "Zwolle"}'),
           (${database.current.accountId}, 'products', '5', 'update', '{stock}', '{"id": 5, "stock": "1"}', '{"id": 5, "stock": "3"}')`.execute(
    db(),
  );
  const sender = new Deliverer(
    db(),
    { allowPrivate: true, timeoutMs: 2000, retryDelaysMs: [3_600_000], concurrency: 4, masterSecret: MASTER },
    pino({ level: 'silent' }),
  );
  await sender.deliverDue();
  await sender.close();
  await eventsSettled(db());
  // A receiver whose URL carries a token: the console hides the query.
  await addSubscription(
    db(),
    { url: 'https://hooks.example.com/in?token=s3cr3t-t0ken', eventTypes: ['job.failed'], accountId: null },
    MASTER,
  );
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await receiver?.close();
});

describe.skipIf(!CHROMIUM)('console: events and webhooks', () => {
  it('lists the newest events, filtered by type', async () => {
    await page.goto(`${base}/events`);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    expect(await page.locator('nav a.active').textContent()).toBe('Events');
    await page.selectOption('select[name=type]', 'product.stock_changed');
    await Promise.all([page.waitForURL(/type=product.stock_changed/), page.click('form.filters button[type=submit]')]);
    const rows = await page.locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('products 5');
    await photograph(page, 'events');
  });

  it('shows subscriptions and their deliveries; Retry makes a failed delivery due now', async () => {
    await page.goto(`${base}/webhooks`);
    const row = await page.locator('tbody tr').first().textContent();
    expect(row).toContain(receiver.url);
    expect(row).toContain('client.changed');
    expect(await page.content()).not.toContain(secret.slice(6, 20));
    expect(await page.locator('tbody tr').nth(1).textContent()).toContain('https://hooks.example.com/in?…');
    expect(await page.content()).not.toContain('s3cr3t-t0ken');
    await page.click(`a[href="/webhooks/1"]`);
    await page.waitForURL(/\/webhooks\/1$/);
    const delivery = await page.locator('tbody tr').first().textContent();
    expect(delivery).toContain('500 try again later');
    expect(delivery).toContain('pending');
    await photograph(page, 'webhook-deliveries');
    const dueBefore = await sql<{ due: boolean }>`select due_at > now() as due from webhook_deliveries`.execute(db());
    expect(dueBefore.rows[0]!.due).toBe(true);
    await page.click('button:has-text("Retry")');
    await page.waitForURL(/\/webhooks\/1$/);
    const dueAfter = await sql<{ due: boolean }>`select due_at <= now() as due from webhook_deliveries`.execute(db());
    expect(dueAfter.rows[0]!.due).toBe(true);
  });

  it('no events or webhooks page is wider than its window, at 1280×800 and at 390×844', async () => {
    const overflowing = await widerThanWindow(page, base, ['/events', '/webhooks', '/webhooks/1']);
    expect(overflowing).toEqual([]);
  });
});
