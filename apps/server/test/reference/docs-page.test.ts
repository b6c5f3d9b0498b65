import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpHarness } from '../support/http-harness.js';

/** Debian's Chromium; `.ci/run` installs it when missing. */
const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI !== 'true') {
  console.log(`the /docs page in Chromium: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);
}

let harness: HttpHarness;
beforeAll(async () => {
  harness = await HttpHarness.start();
});
afterAll(async () => {
  await harness?.close();
});

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly summary: string;
}

async function documentedOperations(): Promise<Operation[]> {
  const document = (await (await harness.fetch('/openapi.json')).json()) as {
    paths: Record<string, Record<string, { summary?: string }>>;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation.summary !== undefined) operations.push({ method, path, summary: operation.summary });
    }
  }
  return operations;
}

describe('the API reference, over HTTP', () => {
  it('GET /docs, its script and /openapi.json need no key; the page may load nothing from elsewhere', async () => {
    const page = await harness.fetch('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const html = await page.text();
    expect(html).toContain('<redoc spec-url="/openapi.json"');
    expect(html).not.toMatch(/https?:\/\//);
    const script = await harness.fetch('/docs/redoc.standalone.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(500_000);
    const document = await harness.fetch('/openapi.json');
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi: string }).openapi).toBe('3.1.0');
    expect((await documentedOperations()).length).toBeGreaterThanOrEqual(14);
  });

  it('other methods are 405 with Allow', async () => {
    for (const path of ['/docs', '/openapi.json', '/docs/redoc.standalone.js']) {
      const response = await harness.fetch(path, { method: 'POST' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});

describe.skipIf(!haveChromium && process.env.CI !== 'true')('the API reference in headless Chromium', () => {
  it('loads offline, lists every operation, and logs no error', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
      ],
    });
    try {
      const context = await browser.newContext();
      const outside: string[] = [];
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        const local = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
        if (local || url.protocol === 'data:' || url.protocol === 'blob:') await route.continue();
        else {
          outside.push(url.href);
          await route.abort('blockedbyclient');
        }
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${harness.url}/docs`, { waitUntil: 'load' });
      const operations = await documentedOperations();
      // Operations of collapsed tags are in the menu but hidden: wait for them to be there, not visible.
      await page.getByText(operations[0]!.summary).first().waitFor({ state: 'attached', timeout: 30_000 });
      await page.waitForLoadState('networkidle');
      const menu = page.locator('[role="menuitem"]');
      const listed = (await menu.allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
      for (const operation of operations) {
        expect(
          listed.some((text) => text.endsWith(operation.summary)),
          operation.summary,
        ).toBe(true);
      }
      expect(outside).toEqual([]);
      expect(errors).toEqual([]);
      if (process.env.MDSTORE_DOCS_SCREENSHOT)
        await page.screenshot({ path: process.env.MDSTORE_DOCS_SCREENSHOT });
    } finally {
      await browser.close();
    }
  });
});
