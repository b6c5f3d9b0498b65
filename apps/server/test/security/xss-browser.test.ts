import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpHarness } from '../support/http-harness.js';
import { dangerousUrl, FORBIDDEN_ELEMENTS, URL_ATTRIBUTES, xssVectors } from './xss-corpus.js';

/**
 * The XSS corpus (xss-vectors.txt) in a real browser (extensions §11): each vector is stored as a file,
 * rendered through `GET …/files/{filename}?format=html`, and loaded into a page of headless Chromium
 * with NO Content-Security-Policy (the sanitiser alone must hold) that records any script execution:
 * `alert`/`confirm`/`prompt`/`print`/`document.write` replaced by recorders, `window.__xss` a setter,
 * dialogs, page errors, and any request leaving the page. Handlers are given their chance: every
 * element gets mouse, focus, drag, input and toggle events. Then the DOM is read: no forbidden element,
 * no `on*` or `style` attribute, no script URL in any URL attribute.
 */

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI !== 'true') {
  console.log(`the XSS corpus in Chromium: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);
}

const PAGE_ORIGIN = 'http://xss.test';

/** Installed before any of the page's content runs. */
const RECORDERS = `
  window.__ran = [];
  const record = (what) => window.__ran.push(what);
  for (const name of ['alert', 'confirm', 'prompt', 'print']) window[name] = () => record(name);
  document.write = () => record('document.write');
  document.writeln = () => record('document.writeln');
  Object.defineProperty(window, '__xss', { set: () => record('__xss'), get: () => undefined });
`;

interface Found {
  readonly element: string;
  readonly attribute?: string;
  readonly value?: string;
}

/**
 * Runs in the page (JavaScript source: this file is not compiled against the DOM): events for every
 * element of the fragment, then what the fragment holds that it should not.
 */
const INSPECT = `(args) => {
  const elements = Array.from(document.body.querySelectorAll('*'));
  for (const element of elements) {
    for (const type of ['mouseover', 'mouseenter', 'mousemove', 'focus', 'focusin', 'dragstart', 'input', 'toggle']) {
      element.dispatchEvent(new Event(type, { bubbles: true }));
    }
    if (typeof element.focus === 'function') element.focus();
  }
  const found = [];
  for (const element of Array.from(document.querySelectorAll('#fragment *'))) {
    const name = element.localName;
    if (args.forbidden.includes(name)) found.push({ element: name });
    for (const attribute of Array.from(element.attributes)) {
      const attributeName = attribute.name.toLowerCase();
      if (attributeName.startsWith('on') || attributeName === 'style' || args.urlAttributes.includes(attributeName)) {
        found.push({ element: name, attribute: attributeName, value: attribute.value });
      }
    }
  }
  return found;
}`;

const inspect = (page: { evaluate(expression: string): Promise<unknown> }): Promise<Found[]> =>
  page.evaluate(
    `(${INSPECT})(${JSON.stringify({ forbidden: FORBIDDEN_ELEMENTS, urlAttributes: URL_ATTRIBUTES })})`,
  ) as Promise<Found[]>;

const ranInPage = (page: { evaluate(expression: string): Promise<unknown> }): Promise<string[]> =>
  page.evaluate('window.__ran') as Promise<string[]>;

let harness: HttpHarness;
beforeAll(async () => {
  harness = await HttpHarness.start();
});
afterAll(async () => {
  await harness?.close();
});

describe.skipIf(!haveChromium && process.env.CI !== 'true')('the XSS corpus in headless Chromium', () => {
  it('no vector runs script, and none leaves a handler, style or script URL in the page', async () => {
    const vectors = xssVectors();
    const { apiKey } = await harness.account();
    const { id: projectId } = await harness.createProject(apiKey, 'XSS corpus');
    const fragments: string[] = [];
    for (const [index, vector] of vectors.entries()) {
      await harness.uploadFile(apiKey, projectId, `v${index + 1}.md`, vector);
      const response = await harness.fetch(`/api/projects/${projectId}/files/v${index + 1}.md?format=html`, {
        key: apiKey,
      });
      expect(response.status).toBe(200);
      fragments.push(await response.text());
    }

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
      const context = await browser.newContext({ javaScriptEnabled: true });
      await context.addInitScript(RECORDERS);
      let current = '';
      const outside: string[] = [];
      await context.route('**/*', async (route) => {
        const url = route.request().url();
        if (url === `${PAGE_ORIGIN}/page`) {
          await route.fulfill({
            status: 200,
            contentType: 'text/html; charset=utf-8',
            body: `<!doctype html><html><head><title>corpus</title></head><body><main id="fragment">${current}</main></body></html>`,
          });
        } else {
          outside.push(url);
          await route.abort('blockedbyclient');
        }
      });
      const page = await context.newPage();
      const events: string[] = [];
      page.on('dialog', async (dialog) => {
        events.push(`dialog ${dialog.type()}`);
        await dialog.dismiss();
      });
      page.on('pageerror', (error) => events.push(`pageerror ${error.message}`));
      // Images the vectors name are blocked (above): their failed loads are no script.
      page.on('console', (message) => {
        if (!message.text().startsWith('Failed to load resource')) events.push(`console ${message.text()}`);
      });

      const failures: string[] = [];
      for (const [index, fragment] of fragments.entries()) {
        current = fragment;
        events.length = 0;
        outside.length = 0;
        await page.goto(`${PAGE_ORIGIN}/page`, { waitUntil: 'load' });
        const found = await inspect(page);
        await page.waitForTimeout(20);
        const ran = await ranInPage(page);
        const bad = found.filter(
          (item) =>
            item.attribute === undefined ||
            item.attribute.startsWith('on') ||
            item.attribute === 'style' ||
            dangerousUrl(item.element, item.attribute, item.value ?? ''),
        );
        const left = page.url() !== `${PAGE_ORIGIN}/page`;
        // Requests to http(s) URLs the vector names (images) are blocked, not run: only script-ish ones count.
        const scripted = outside.filter((url) => !/^https?:/.test(url));
        if (ran.length > 0 || events.length > 0 || bad.length > 0 || left || scripted.length > 0) {
          failures.push(
            `vector ${index + 1} ${JSON.stringify(vectors[index]!.slice(0, 80))}: ${JSON.stringify({ ran, events, bad, left, scripted })}`,
          );
        }
      }
      expect(failures).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 180_000);

  it('the recorders catch a script that does run (the test can fail)', async () => {
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
      await context.addInitScript(RECORDERS);
      await context.route('**/*', (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: '<main id="fragment"><img src="x:" onerror="alert(1)"><script>window.__xss = 1</script></main>',
        }),
      );
      const page = await context.newPage();
      await page.goto(`${PAGE_ORIGIN}/page`, { waitUntil: 'load' });
      await page.waitForTimeout(50);
      const ran = await ranInPage(page);
      expect(ran.sort()).toEqual(['__xss', 'alert']);
      const found = await inspect(page);
      expect(found.map((item) => item.attribute ?? item.element)).toEqual(['src', 'onerror', 'script']);
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe.skipIf(!haveChromium && process.env.CI !== 'true')('share pages in headless Chromium', () => {
  it('under their CSP no vector runs; the stylesheet applies; a phone’s width needs no sideways scroll', async () => {
    const vectors = xssVectors();
    const { apiKey } = await harness.account();
    const { id: projectId } = await harness.createProject(apiKey, 'Shared corpus');
    const picked = vectors.filter((_, index) => index % 3 === 0);
    for (const [index, vector] of picked.entries()) {
      await harness.uploadFile(apiKey, projectId, `x/v${index + 1}.md`, vector);
    }
    const long = `# A page\n\n${'A rather long paragraph of words that must wrap. '.repeat(8)}\n\n\`\`\`\n${'code '.repeat(60)}\n\`\`\`\n`;
    await harness.uploadFile(apiKey, projectId, 'x/long.md', long);
    const created = await harness.json(`/api/projects/${projectId}/shares`, 'POST', apiKey, { prefix: 'x/' });
    expect(created.status).toBe(201);
    const base = new URL(((await created.json()) as { url: string }).url).pathname;

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
      const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
      await context.addInitScript(RECORDERS);
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        if (url.origin === harness.url) await route.continue();
        else await route.abort('blockedbyclient');
      });
      const page = await context.newPage();
      const events: string[] = [];
      page.on('dialog', async (dialog) => {
        events.push(`dialog ${dialog.type()}`);
        await dialog.dismiss();
      });
      page.on('pageerror', (error) => events.push(`pageerror ${error.message}`));
      const failures: string[] = [];
      for (const index of picked.keys()) {
        events.length = 0;
        const response = await page.goto(`${harness.url}${base}/x/v${index + 1}.md`, { waitUntil: 'load' });
        expect(response?.status()).toBe(200);
        await inspect(page);
        await page.waitForTimeout(20);
        const ran = await ranInPage(page);
        if (ran.length > 0 || events.length > 0)
          failures.push(`v${index + 1}: ${JSON.stringify({ ran, events })}`);
      }
      expect(failures).toEqual([]);

      await page.goto(`${harness.url}${base}/x/long.md`, { waitUntil: 'load' });
      const layout = (await page.evaluate(`({
        scrollWidth: document.documentElement.scrollWidth,
        font: getComputedStyle(document.body).fontFamily,
        pre: getComputedStyle(document.querySelector('pre')).overflowX,
      })`)) as { scrollWidth: number; font: string; pre: string };
      expect(layout.font).toContain('system-ui');
      expect(layout.pre).toBe('auto');
      expect(layout.scrollWidth).toBeLessThanOrEqual(375);
      await page.goto(`${harness.url}${base}`, { waitUntil: 'load' });
      expect(await page.locator('a', { hasText: 'long.md' }).count()).toBe(1);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
