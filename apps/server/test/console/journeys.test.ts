import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AXE_SOURCE_PATH,
  browserSuite,
  CHROMIUM,
  type ConsoleServer,
  haveChromium,
  launchChromium,
  startConsoleServer,
  uploadForm,
} from './support.js';

/**
 * Issue 28 in a real browser: the console driven by Debian's headless Chromium against the built
 * server on SQLite (as `npm start` runs it), one browser, one server, the journeys one after the other
 * in one tab (each starts where the previous one left the console).
 */

// The page's globals as the callbacks below use them: they run in Chromium, and this program has no DOM types.
declare const window: unknown;
declare const document: {
  activeElement: { textContent: string | null; getAttribute(name: string): string | null } | null;
  cookie: string;
  body: { innerText: string };
  documentElement: { scrollWidth: number };
};
declare const sessionStorage: Record<string, string>;
declare const localStorage: Record<string, string>;
declare const location: { href: string; hash: string };
declare class DataTransfer {
  items: { add(file: File): void };
}
declare class File {
  constructor(parts: (string | Uint8Array)[], name: string, options: { type: string });
}
/** An `<img>` as the checks below read it in the page. */
type Img = { naturalWidth: number; src: string };

if (!haveChromium && process.env.CI !== 'true') {
  console.log(`the console in Chromium: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);
}

let server: ConsoleServer;
let browser: Browser;
let page: Page;
/** Console errors and CSP violations seen by the page: none is expected. */
const errors: string[] = [];
/** Requests the page made to anywhere but the server: none is expected. */
const outside: string[] = [];
let axeSource: string;

const SETUP = `---
title: Setup
tags: [guide]
---
# Setup

Install the **mdstore** server first.

## Configure

See the [readme](../readme.md) for the keys.
`;

async function api(pathname: string, init: RequestInit = {}): Promise<Response> {
  return server.api(pathname, init);
}
const files = (name: string) => `/api/projects/${server.projectId}/files/${encodeURIComponent(name)}`;
async function content(name: string): Promise<string> {
  return (await api(files(name))).text();
}

/** An axe-core scan of the page as it is: the serious and critical violations, with where they are. */
async function seriousViolations(screen: string, on: Page = page): Promise<string[]> {
  await on.evaluate(axeSource);
  const found = (await on.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, o: object) => Promise<unknown> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  })) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  return found.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${screen}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const violations: string[] = [];
const scan = async (screen: string) => violations.push(...(await seriousViolations(screen)));

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const attachment = (path: string) =>
  `/api/projects/${server.projectId}/attachments/${encodeURIComponent(path)}`;
const putAttachment = (path: string, body: Buffer | string, type: string) =>
  api(attachment(path), { method: 'PUT', headers: { 'Content-Type': type }, body });
/** The natural widths of the images `locator` finds (0 for one not loaded). */
const widths = (locator: ReturnType<Page['locator']>) =>
  locator.evaluateAll((images) => images.map((image) => (image as unknown as Img).naturalWidth));

const nav = (name: string) => page.getByRole('navigation', { name });
const main = () => page.getByRole('main');

describe.skipIf(!browserSuite)('the console in headless Chromium', () => {
  beforeAll(async () => {
    [server, browser, axeSource] = await Promise.all([
      // Webhooks to a loopback URL (the webhooks journey): private targets allowed. Embeddings by the
      // deterministic provider of the tests (no model), for the search by meaning.
      startConsoleServer({ MDSTORE_WEBHOOK_ALLOW_PRIVATE: 'true', MDSTORE_EMBEDDINGS: 'hashed' }),
      launchChromium(),
      readFile(AXE_SOURCE_PATH, 'utf8'),
    ]);
    // Trash on, so that a delete can be undone from the console.
    const settings = await api(`/api/projects/${server.projectId}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ settings: { trash_retention_days: 7 } }),
    });
    expect(settings.status).toBe(200);
    for (const [name, text] of [
      ['readme.md', '# Readme\n\nThe keys are in the vault.\n'],
      ['guides/setup.md', SETUP],
      ['notes.md', '# Notes\n\nfirst line\n'],
    ] as const) {
      expect(
        (
          await api(`/api/projects/${server.projectId}/files`, {
            method: 'POST',
            body: uploadForm(name, text),
          })
        ).status,
      ).toBe(201);
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.origin === new URL(server.url).origin || url.protocol === 'data:') await route.continue();
      else {
        outside.push(url.href);
        await route.abort('blockedbyclient');
      }
    });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
  }, 120_000);

  // A failing journey says where the console was and what it showed.
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail' || !page) return;
    const text = await page.evaluate(() => document.body.innerText).catch(() => '');
    console.log(
      `${context.task.name}: failed at ${page.url()}\n${text.slice(0, 2000)}\nerrors: ${errors.join('\n')}`,
    );
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('key entry: a field labelled "API key", Enter signs in, the key stays in the tab only', async () => {
    await page.goto(`${server.url}/`);
    await scan('sign-in');
    const field = page.getByLabel('API key');
    await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    await field.fill('not-a-key');
    await field.press('Enter');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('Invalid authentication credentials');
    await field.fill(server.apiKey);
    await field.press('Enter');
    await nav('Projects').getByRole('link', { name: 'Default' }).waitFor();
    const stored = await page.evaluate(() => ({
      session: Object.values(sessionStorage),
      local: Object.keys(localStorage).length,
      cookie: document.cookie,
      url: location.href,
    }));
    expect(stored.session).toContain(server.apiKey);
    expect(stored.local).toBe(0);
    expect(stored.cookie).toBe('');
    expect(stored.url).not.toContain(server.apiKey);
    await scan('projects');
  });

  it('browse: projects with counters, then folders and files in the navigation landmark', async () => {
    await expect.poll(() => main().getByRole('row').nth(1).textContent()).toContain('Default3');
    await nav('Projects').getByRole('link', { name: 'Default' }).click();
    const folders = nav('Folders');
    await folders.getByRole('link', { name: 'Folder guides' }).click();
    await folders.getByRole('link', { name: 'setup.md' }).click();
    await main().getByRole('heading', { name: 'guides/setup.md' }).waitFor();
    // Rendered by the server (`?format=html`): the file's headings are headings inside main.
    await main().getByRole('heading', { name: 'Configure', level: 2 }).waitFor();
    expect(await main().locator('.rendered strong').textContent()).toBe('mdstore');
    // Metadata, front matter and outline beside it.
    const details = main().getByRole('complementary', { name: 'File details' });
    // The front matter as written, coloured as YAML (issue 37): its keys, values and markers.
    const yaml = details.getByRole('region', { name: 'Front matter (YAML)' });
    expect(await yaml.textContent()).toBe('---\ntitle: Setup\ntags: [guide]\n---');
    expect(await yaml.locator('.yaml-key').allTextContents()).toEqual(['title', 'tags']);
    expect(await yaml.locator('.yaml-value').allTextContents()).toEqual(['Setup', '[guide]']);
    expect(await yaml.locator('.yaml-mark').allTextContents()).toEqual(['---', '---']);
    expect(await details.getByRole('list').first().textContent()).toContain('Configure');
    await scan('file view');
    // A link to another file of the project opens it in the console.
    await main().getByRole('link', { name: 'readme' }).click();
    await main().getByRole('heading', { name: 'readme.md' }).waitFor();
    expect(page.url()).toContain(`#/p/${server.projectId}/f/readme.md`);
  });

  it('an .mdx file is shown as its source, not rendered', async () => {
    const text = '# Card\n\n<Card title="x" />\n';
    expect(
      (
        await api(`/api/projects/${server.projectId}/files`, {
          method: 'POST',
          body: uploadForm('card.mdx', text),
        })
      ).status,
    ).toBe(201);
    await page.goto(`${server.url}/#/p/${server.projectId}/f/card.mdx`);
    const source = main().getByRole('region', { name: 'File source' });
    await source.waitFor();
    expect(await source.textContent()).toBe(text);
    expect(await main().locator('.rendered').count()).toBe(0);
    // Its outline comes from the outline endpoint instead.
    expect(await main().getByRole('complementary', { name: 'File details' }).textContent()).toContain('Card');
    expect((await api(files('card.mdx'), { method: 'DELETE' })).status).toBe(204);
  });

  it('search: results with highlighted snippets, opening a result', async () => {
    await page.goto(`${server.url}/#/p/${server.projectId}/search`);
    await page.getByLabel('Search words').fill('vault');
    await page.getByLabel('Search words').press('Enter');
    const marks = main().locator('mark');
    await marks.first().waitFor();
    expect(await marks.allTextContents()).toEqual(['vault']);
    await scan('search');
    await main().getByRole('link', { name: 'readme.md' }).click();
    await main().getByRole('heading', { name: 'readme.md' }).waitFor();
  });

  it('search by meaning (extensions §15): the switch is offered with embeddings on; hits show their section', async () => {
    // The indexer embeds off the request path: wait until it has caught up with the files.
    await expect
      .poll(
        async () =>
          (
            (await (await api(`/api/projects/${server.projectId}/search/status`)).json()) as {
              pending: number;
            }
          ).pending,
        { timeout: 20_000 },
      )
      .toBe(0);
    await page.goto(`${server.url}/#/p/${server.projectId}/search?q=vault`);
    await main().locator('mark').first().waitFor();
    const modes = main().getByRole('group', { name: 'Search by' });
    expect(await modes.getByRole('radio', { name: 'Words', exact: true }).isChecked()).toBe(true);
    await modes.getByRole('radio', { name: 'Meaning', exact: true }).check();
    await page.waitForFunction(() => location.hash.endsWith('mode=semantic'));
    const hit = main()
      .getByRole('listitem')
      .filter({ has: page.getByRole('link', { name: 'readme.md' }) });
    await hit.getByText('Section: Readme').waitFor();
    expect(await hit.textContent()).toContain('The keys are in the vault.');
    await scan('search by meaning');
  });

  it('edit and save: "Edit" opens a textbox with the text, "Save" writes it with If-Match', async () => {
    await page.goto(`${server.url}/#/p/${server.projectId}/f/notes.md`);
    await main().getByRole('button', { name: 'Edit' }).click();
    const editor = main().getByRole('textbox', { name: 'Content of notes.md' });
    await editor.waitFor();
    expect(await editor.textContent()).toContain('first line');
    await scan('editor');
    await editor.press('Control+End');
    await page.keyboard.type('second line');
    await main().getByRole('button', { name: 'Save' }).click();
    await main().getByRole('button', { name: 'Edit' }).waitFor();
    expect(await content('notes.md')).toBe('# Notes\n\nfirst line\nsecond line');
  });

  it('a conflict made by another writer: the other change as a diff, then "Save as copy"', async () => {
    // The last save reloads the file, and its change event may reload it once more: start from the saved
    // revision, shown, so that no reload is still to come when "Edit" is pressed (a loaded CI run once
    // clicked it in between and the editor never opened).
    await main()
      .getByText(/^revision 2 ·/)
      .waitFor();
    const editor = main().getByRole('textbox', { name: 'Content of notes.md' });
    // A reload still on its way (the save's change event) can close an editor opened just before it:
    // press "Edit" again until the editor stays (a loaded CI run met it after the wait above too).
    for (let attempt = 1; ; attempt += 1) {
      await main().getByRole('button', { name: 'Edit', disabled: false }).click();
      try {
        await editor.waitFor({ timeout: 3_000 });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
    await editor.press('Control+End');
    await page.keyboard.type(' (mine)');
    const theirs = await api(`${files('notes.md')}/content`, {
      method: 'PUT',
      headers: { 'Content-Type': 'text/markdown' },
      body: '# Notes\n\nfirst line\ntheir line\n',
    });
    expect(theirs.status).toBe(200);
    await main().getByRole('button', { name: 'Save' }).click();
    await main().getByRole('heading', { name: 'Conflict: the other change' }).waitFor();
    const diff = main().getByRole('region', { name: 'The other change', exact: true });
    expect(await diff.textContent()).toContain('+their line');
    // Nothing was overwritten.
    expect(await content('notes.md')).toBe('# Notes\n\nfirst line\ntheir line\n');
    await scan('conflict');
    await main().getByRole('button', { name: 'Save as copy' }).click();
    await main().getByRole('heading', { name: 'notes (copy).md' }).waitFor();
    expect(await content('notes (copy).md')).toBe('# Notes\n\nfirst line\nsecond line (mine)');
    expect(await content('notes.md')).toBe('# Notes\n\nfirst line\ntheir line\n');
  });

  it('history: a diff of any two revisions, and restore', async () => {
    await page.goto(`${server.url}/#/p/${server.projectId}/f/notes.md`);
    await main().getByRole('button', { name: 'History' }).click();
    await main().getByRole('button', { name: 'Restore revision 1' }).waitFor();
    // Extensions §14: who wrote each revision; this session's key wrote them all.
    expect(await main().getByRole('columnheader', { name: 'By' }).count()).toBe(1);
    expect(await main().getByRole('cell', { name: 'you', exact: true }).count()).toBeGreaterThan(1);
    await main().getByLabel('From revision').selectOption('1');
    await main().getByLabel('To revision').selectOption('2');
    await main().getByRole('button', { name: 'Show diff' }).click();
    const diff = main().getByRole('region', { name: 'Changes from revision 1 to 2' });
    expect(await diff.textContent()).toContain('+second line');
    await scan('history');
    await main().getByRole('button', { name: 'Restore revision 1' }).click();
    await expect.poll(() => content('notes.md')).toBe('# Notes\n\nfirst line\n');
  });

  it('upload by drop: a DataTransfer dropped on the drop zone stores its files', async () => {
    await page.goto(`${server.url}/#/p/${server.projectId}`);
    const zone = main().locator('section.drop');
    await zone.waitFor();
    await scan('project');
    const transfer = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File(['# Dropped\n\nfrom the desktop\n'], 'dropped.md', { type: 'text/markdown' }));
      data.items.add(new File(['# Other\n'], 'other.md', { type: 'text/markdown' }));
      return data;
    });
    await zone.dispatchEvent('dragover', { dataTransfer: transfer });
    await zone.dispatchEvent('drop', { dataTransfer: transfer });
    await expect.poll(() => main().getByRole('status').first().textContent()).toContain('Uploaded 2 file(s)');
    expect(await content('dropped.md')).toBe('# Dropped\n\nfrom the desktop\n');
    expect((await api(files('other.md'))).status).toBe(200);
    // Create: a new file from a name, opened at once.
    await main().getByLabel('New file name').fill('created');
    await main().getByRole('button', { name: 'Create file' }).click();
    await main().getByRole('heading', { name: 'created.md' }).waitFor();
    expect(await content('created.md')).toBe('# created\n');
    await page.goto(`${server.url}/#/p/${server.projectId}`);
    // A name with another extension is not turned into notes.txt.md silently: the console asks.
    await main().getByLabel('New file name').fill('notes.txt');
    await main().getByRole('button', { name: 'Create file' }).click();
    await main().getByRole('button', { name: 'Create notes.txt.md' }).waitFor();
    expect((await api(files('notes.txt.md'))).status).toBe(404);
    await main().getByRole('button', { name: 'Create notes.txt.md' }).click();
    await main().getByRole('heading', { name: 'notes.txt.md' }).waitFor();
    await page.goto(`${server.url}/#/p/${server.projectId}`);
  });

  it('images of attachments in a rendered file are read with the key and shown through blob: URLs', async () => {
    expect((await putAttachment('a.png', PNG, 'image/png')).status).toBe(201);
    const note = '# Pictures\n\n![[a.png]]\n\n![x](a.png)\n';
    expect(
      (
        await api(`/api/projects/${server.projectId}/files`, {
          method: 'POST',
          body: uploadForm('pics.md', note),
        })
      ).status,
    ).toBe(201);
    await page.goto(`${server.url}/#/p/${server.projectId}/f/pics.md`);
    const images = main().locator('.rendered img');
    await main().getByRole('heading', { name: 'Pictures' }).waitFor();
    expect(await images.count()).toBe(2);
    // Without the key in the request an image would not load (401): each is read with it, then shown.
    await expect.poll(() => widths(images)).toEqual([1, 1]);
    const urls = await images.evaluateAll((all) => all.map((image) => (image as unknown as Img).src));
    expect(urls.every((url) => url.startsWith('blob:'))).toBe(true);
    expect(await images.first().getAttribute('alt')).toBe('a.png');
    await scan('file with images');
    // Another file shown: the object URLs are revoked (an image of one no longer loads).
    await page.goto(`${server.url}/#/p/${server.projectId}/f/readme.md`);
    await main().getByRole('heading', { name: 'readme.md' }).waitFor();
    const revoked = await page.evaluate(
      (url) =>
        new Promise<boolean>((resolve) => {
          const probe = new (
            globalThis as unknown as { Image: new () => Img & { onload: unknown; onerror: unknown } }
          ).Image();
          probe.onload = () => resolve(false);
          probe.onerror = () => resolve(true);
          probe.src = url;
        }),
      urls[0]!,
    );
    expect(revoked).toBe(true);
    // The probe's failed load is the one console error expected here.
    const probeError = (e: string) => e.includes('net::ERR_FILE_NOT_FOUND');
    await expect.poll(() => errors.some(probeError)).toBe(true);
    errors.splice(0, errors.length, ...errors.filter((e) => !probeError(e)));
  });

  it('attachments panel: listed by folder and paged, uploaded by drop and by picking, previewed, deleted', async () => {
    expect((await putAttachment('pics/c.png', PNG, 'image/png')).status).toBe(201);
    for (let i = 0; i < 53; i++)
      expect(
        (await putAttachment(`many/f${String(i).padStart(2, '0')}.txt`, `${i}`, 'text/plain')).status,
      ).toBe(201);
    await page.goto(`${server.url}/#/p/${server.projectId}`);
    const panel = main().getByRole('region', { name: 'Attachments' });
    const list = panel.getByRole('list', { name: 'Attachments in this folder' });
    // An image is previewed inline (read with the key), folders fold.
    await expect.poll(() => widths(panel.getByRole('img', { name: 'a.png' }))).toEqual([1]);
    await list.getByRole('link', { name: 'pics/' }).waitFor();
    // Dropped onto the panel: raw bytes with each file's type.
    const transfer = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File(['plain words\n'], 'words.txt', { type: 'text/plain' }));
      data.items.add(new File(['%PDF-1.4\n%%EOF\n'], 'report.pdf', { type: 'application/pdf' }));
      return data;
    });
    await panel.dispatchEvent('dragover', { dataTransfer: transfer });
    await panel.dispatchEvent('drop', { dataTransfer: transfer });
    await expect.poll(() => panel.getByRole('status').textContent()).toBe('Uploaded 2 attachment(s).');
    expect(await (await api(attachment('words.txt'))).text()).toBe('plain words\n');
    expect((await api(attachment('report.pdf'))).headers.get('content-type')).toBe('application/pdf');
    // Picked: bytes that are not the declared type are refused with the server's message (415).
    await panel.getByLabel('Choose attachments to upload').setInputFiles([
      { name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('not a png at all') },
      { name: 'b.png', mimeType: 'image/png', buffer: PNG },
    ]);
    const refused = await api(attachment('fake.png'), {
      method: 'PUT',
      headers: { 'Content-Type': 'image/png' },
      body: 'not a png at all',
    });
    expect(refused.status).toBe(415);
    const detail = ((await refused.json()) as { detail: string }).detail;
    await expect
      .poll(() => panel.getByRole('status').textContent())
      .toBe(`Uploaded 1 attachment(s). Refused: fake.png: ${detail}`);
    await expect.poll(() => widths(panel.getByRole('img', { name: 'b.png' }))).toEqual([1]);
    // Others are downloaded on demand (read with the key), under their name.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: 'Download report.pdf' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('report.pdf');
    await scan('attachments');
    // Deleted after a confirmation.
    await panel.getByRole('button', { name: 'Delete words.txt' }).click();
    await panel.getByRole('button', { name: 'Confirm delete words.txt' }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toBe('Deleted words.txt.');
    expect((await api(attachment('words.txt'))).status).toBe(404);
    await expect.poll(() => list.getByRole('button', { name: 'Download words.txt' }).count()).toBe(0);
    // A folder: its attachments alone, a page of 50 at a time.
    await list.getByRole('link', { name: 'many/' }).click();
    await list.getByRole('button', { name: 'Download f00.txt' }).waitFor();
    expect(await list.getByRole('listitem').count()).toBe(50);
    await panel.getByRole('button', { name: 'Next page' }).click();
    await list.getByRole('button', { name: 'Download f52.txt' }).waitFor();
    expect(await list.getByRole('listitem').count()).toBe(3);
    await page.goto(`${server.url}/#/p/${server.projectId}`);
  });

  it('editor: front matter coloured as YAML, and a live preview the server renders as the text changes', async () => {
    await page.goto(`${server.url}/#/p/${server.projectId}/f/${encodeURIComponent('guides/setup.md')}`);
    await main().getByRole('button', { name: 'Edit' }).click();
    const editor = main().getByRole('textbox', { name: 'Content of guides/setup.md' });
    await editor.waitFor();
    expect(await editor.locator('.yaml-key').allTextContents()).toEqual(['title', 'tags']);
    expect(await editor.locator('.yaml-mark').allTextContents()).toEqual(['---', '---']);
    // Not a Markdown setext heading (`tags: [guide]` over `---`): nothing in the block is underlined/bold.
    const headingLike = await editor.locator('.cm-line').evaluateAll((lines) =>
      lines.slice(0, 4).some((line) =>
        [
          line,
          ...(line as unknown as { querySelectorAll(s: string): unknown[] }).querySelectorAll('span'),
        ].some((element) => {
          const style = (
            globalThis as unknown as {
              getComputedStyle(e: unknown): { textDecorationLine: string; fontWeight: string };
            }
          ).getComputedStyle(element);
          return style.textDecorationLine.includes('underline');
        }),
      ),
    );
    expect(headingLike).toBe(false);
    const preview = main().getByRole('region', { name: 'Preview' });
    await preview.getByRole('heading', { name: 'Configure' }).waitFor();
    const imageReads: string[] = [];
    const countReads = (request: { url(): string }) => {
      if (request.url().endsWith('/attachments/a.png')) imageReads.push(request.url());
    };
    page.on('request', countReads);
    await editor.press('Control+End');
    await page.keyboard.type('\n## Live heading\n\n![[a.png]]\n');
    // Rendered by the server (POST …/render) after a pause: the new heading, the embed as an image.
    await preview.getByRole('heading', { name: 'Live heading' }).waitFor();
    await expect.poll(() => widths(preview.locator('img'))).toEqual([1]);
    // Rendered again after more typing: the image is not read again (kept while the editor is open).
    await page.keyboard.type('More words.');
    await preview.getByText('More words.').waitFor();
    await expect.poll(() => widths(preview.locator('img'))).toEqual([1]);
    page.off('request', countReads);
    expect(imageReads).toHaveLength(1);
    expect(await content('guides/setup.md')).toBe(SETUP);
    await scan('editor with live preview');
    // On a phone: one at a time, a toggle between them.
    await page.setViewportSize({ width: 375, height: 812 });
    const toggle = main().getByRole('button', { name: 'Show preview' });
    expect(await preview.isVisible()).toBe(false);
    await toggle.click();
    await preview.getByRole('heading', { name: 'Live heading' }).waitFor();
    expect(await editor.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await main().getByRole('button', { name: 'Show editor' }).click();
    await editor.waitFor();
    await page.setViewportSize({ width: 1280, height: 900 });
    await main().getByRole('button', { name: 'Cancel' }).click();
    await main().getByRole('button', { name: 'Edit' }).waitFor();
    await page.goto(`${server.url}/#/p/${server.projectId}`);
  });

  it('a change made elsewhere appears without a reload within 2 s', async () => {
    const folders = nav('Folders');
    await folders.getByRole('link', { name: 'dropped.md' }).waitFor();
    const before = Date.now();
    expect(
      (
        await api(`/api/projects/${server.projectId}/files`, {
          method: 'POST',
          body: uploadForm('live.md', '# Live\n'),
        })
      ).status,
    ).toBe(201);
    await folders.getByRole('link', { name: 'live.md' }).waitFor({ timeout: 2_000 });
    console.log(`console live update: ${Date.now() - before} ms`);
  });

  it('move: a new name from the file view', async () => {
    await nav('Folders').getByRole('link', { name: 'dropped.md' }).click();
    await main().getByRole('heading', { name: 'dropped.md' }).waitFor();
    await main().getByLabel('New name').fill('moved/dropped.md');
    await main().getByRole('button', { name: 'Move' }).click();
    await main().getByRole('heading', { name: 'moved/dropped.md' }).waitFor();
    expect((await api(files('dropped.md'))).status).toBe(404);
    expect(await content('moved/dropped.md')).toBe('# Dropped\n\nfrom the desktop\n');
  });

  it('trash: delete, then restore from the trash', async () => {
    await main().getByRole('button', { name: 'Delete' }).click();
    await main().getByRole('button', { name: 'Confirm delete' }).click();
    // The console goes to the file's folder once the delete is answered.
    await page.waitForFunction(() => !location.hash.includes('/f/'));
    expect((await api(files('moved/dropped.md'))).status).toBe(404);
    await page.goto(`${server.url}/#/p/${server.projectId}/trash`);
    const restore = main().getByRole('button', { name: 'Restore moved/dropped.md' });
    await restore.waitFor();
    await scan('trash');
    await restore.click();
    await main().getByRole('heading', { name: 'moved/dropped.md' }).waitFor();
    expect(await content('moved/dropped.md')).toBe('# Dropped\n\nfrom the desktop\n');
    // Purge: gone for good.
    expect((await api(files('created.md'), { method: 'DELETE' })).status).toBe(204);
    await page.goto(`${server.url}/#/p/${server.projectId}/trash`);
    await main().getByRole('button', { name: 'Purge created.md' }).click();
    await expect.poll(() => main().getByRole('button', { name: 'Purge created.md' }).count()).toBe(0);
    const trash = (await (await api(`/api/projects/${server.projectId}/trash`)).json()) as {
      trash: { filename: string }[];
    };
    expect(trash.trash.map((item) => item.filename)).not.toContain('created.md');
    // A deleted attachment (extensions §12) is restored in place: the trash screen says so and stays.
    const pixel = `/api/projects/${server.projectId}/attachments/pixel.png`;
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    const put = await api(pixel, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: png });
    expect(put.status).toBe(201);
    expect((await api(pixel, { method: 'DELETE' })).status).toBe(204);
    await page.goto(`${server.url}/#/p/${server.projectId}`);
    await page.goto(`${server.url}/#/p/${server.projectId}/trash`);
    await main().getByRole('button', { name: 'Restore pixel.png' }).click();
    await expect.poll(() => main().getByRole('status').first().textContent()).toBe('pixel.png restored.');
    expect(Buffer.from(await (await api(pixel)).arrayBuffer())).toEqual(png);
  });

  it('settings and keys screens for an admin key pass the scan too', async () => {
    await page.goto(`${server.url}/#/p/${server.projectId}/settings`);
    await main().getByLabel('Days deleted files stay in the trash').waitFor();
    await scan('settings');
    await main().getByLabel('Revisions kept per file').fill('5');
    await main().getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => main().getByRole('status').first().textContent()).toBe('Saved.');
    const project = (await (await api(`/api/projects/${server.projectId}`)).json()) as {
      settings: { keep_revisions: number; trash_retention_days: number };
    };
    expect(project.settings).toMatchObject({ keep_revisions: 5, trash_retention_days: 7 });
    await page.goto(`${server.url}/#/keys`);
    await main()
      .getByRole('button', { name: /^Revoke / })
      .first()
      .waitFor();
    await scan('keys');
    await main().getByLabel('New key name').fill('console-made');
    await main().getByLabel('Role').selectOption('write');
    // Extensions §14 and §8: a key confined to a folder, expiring.
    await main().getByLabel('Folders (optional)').fill('memories/');
    await main().getByLabel('Expires (optional)').fill('2099-12-31');
    await main().getByRole('button', { name: 'Create key' }).click();
    const secret = (await main().locator('code.secret').textContent()) ?? '';
    const made = (await (
      await fetch(`${server.url}/api/keys/current`, { headers: { Authorization: `Bearer ${secret}` } })
    ).json()) as { name: string; role: string };
    expect(made).toMatchObject({
      name: 'console-made',
      role: 'write',
      path_prefixes: ['memories/'],
      expires_date: '2099-12-31T23:59:59.000Z',
    });
    await main().getByRole('cell', { name: 'memories/', exact: true }).waitFor();
    await main().getByRole('button', { name: 'Revoke console-made' }).waitFor();
  });

  it('share link: made in the shares screen, opened by a browser without a key, then revoked', async () => {
    await page.goto(`${server.url}/#/p/${server.projectId}/shares`);
    await main().getByRole('heading', { name: 'Share links' }).waitFor();
    await main().getByLabel('File or folder/ to share').fill('guides/setup.md');
    await main().getByRole('button', { name: 'Create share link' }).click();
    const link = main().getByRole('status').getByRole('link');
    await link.waitFor();
    const url = (await link.getAttribute('href')) ?? '';
    expect(url).toMatch(new RegExp(`^${server.url}/s/[A-Za-z0-9_-]{22,}$`));
    await main().getByRole('button', { name: 'Revoke share of guides/setup.md' }).waitFor();
    await scan('shares');
    // A fresh context: no session, no key, nothing shared with the console's tab.
    const stranger = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const reader = await stranger.newPage();
      // As for the console: Chromium's own /favicon.ico request (404) is no error; a resource of the page
      // answered with an error is caught by the response listener instead.
      reader.on('console', (message) => {
        if (message.type() === 'error' && !/status of 4\d\d/.test(message.text()))
          errors.push(`share page: ${message.text()}`);
      });
      reader.on('response', (answer) => {
        if (answer.status() >= 400) errors.push(`share page: ${answer.status()} ${answer.url()}`);
      });
      reader.on('pageerror', (error) => errors.push(`share page: ${error.message}`));
      const styles: string[] = [];
      reader.on('requestfinished', (request) => {
        if (request.resourceType() === 'stylesheet') styles.push(request.url());
      });
      const response = await reader.goto(url);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toBe(
        "default-src 'none'; style-src 'self'; img-src 'self' data:",
      );
      expect(response?.headers()['x-robots-tag']).toBe('noindex');
      await reader.getByRole('heading', { name: 'Configure', level: 2 }).waitFor({ state: 'visible' });
      expect(await reader.getByRole('heading', { name: 'Setup', exact: true, level: 1 }).isVisible()).toBe(
        true,
      );
      expect(await reader.locator('strong').first().textContent()).toBe('mdstore');
      // Its own stylesheet loaded (the CSP's `style-src 'self'`), nothing else was asked for.
      expect(styles).toHaveLength(1);
      expect(new URL(styles[0] ?? '').origin).toBe(server.url);
      violations.push(...(await seriousViolations('share page', reader)));
      const raw = await fetch(`${url}?raw=1`);
      expect(raw.status).toBe(200);
      expect(raw.headers.get('etag')).toBeTruthy();
      expect(await raw.text()).toBe(SETUP);
    } finally {
      await stranger.close();
    }
    // Revoked in the console: the link is gone at once.
    await main().getByRole('button', { name: 'Revoke share of guides/setup.md' }).click();
    await expect
      .poll(() => main().getByRole('button', { name: 'Revoke share of guides/setup.md' }).count())
      .toBe(0);
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(`${url}?raw=1`)).status).toBe(404);
    // Issue 37: "Share" on a file, with an expiry, the link shown with a copy button.
    await page.goto(`${server.url}/#/p/${server.projectId}/f/${encodeURIComponent('guides/setup.md')}`);
    await main().getByLabel('Link expires after').selectOption({ label: '1 day' });
    await main().getByRole('button', { name: 'Share', exact: true }).click();
    const fileLink = main().getByRole('form', { name: 'Share this file' }).getByRole('link');
    await fileLink.waitFor();
    const shared = (await fileLink.getAttribute('href')) ?? '';
    expect(shared).toMatch(new RegExp(`^${server.url}/s/[A-Za-z0-9_-]{22,}$`));
    expect((await fetch(shared)).status).toBe(200);
    await main().getByRole('button', { name: 'Copy link' }).click();
    await expect
      .poll(() => main().getByRole('form', { name: 'Share this file' }).getByRole('status').textContent())
      .toMatch(/^(Link copied\.|Could not copy)/);
    const listed = (await (await api(`/api/projects/${server.projectId}/shares`)).json()) as {
      shares: Array<{ id: string; filename: string; expires_date: string }>;
    };
    const made = listed.shares.find((share) => share.filename === 'guides/setup.md')!;
    const left = Date.parse(made.expires_date) - Date.now();
    expect(left).toBeGreaterThan(86_400_000 - 120_000);
    expect(left).toBeLessThanOrEqual(86_400_000);
    expect(
      (await api(`/api/projects/${server.projectId}/shares/${made.id}`, { method: 'DELETE' })).status,
    ).toBe(204);
  });

  it('move with "Rewrite links": the file linking to it then links to the new name', async () => {
    const linker =
      '# Linker\n\nSee [the target](target.md#usage) and [the readme](readme.md), not [[nowhere at all]].\n';
    for (const [name, text] of [
      ['linker.md', linker],
      ['target.md', '# Target\n\n## Usage\n\nUse it.\n'],
    ] as const) {
      const made = await api(`/api/projects/${server.projectId}/files`, {
        method: 'POST',
        body: uploadForm(name, text),
      });
      expect(made.status).toBe(201);
    }
    await page.goto(`${server.url}/#/p/${server.projectId}/f/target.md`);
    await main().getByRole('heading', { name: 'target.md' }).waitFor();
    await main().getByLabel('New name').fill('archive/target.md');
    const rewrite = main().getByLabel('Rewrite links to it');
    await rewrite.check();
    expect(await rewrite.isChecked()).toBe(true);
    await main().getByRole('button', { name: 'Move' }).click();
    await main().getByRole('heading', { name: 'archive/target.md' }).waitFor();
    expect((await api(files('target.md'))).status).toBe(404);
    expect(await content('archive/target.md')).toBe('# Target\n\n## Usage\n\nUse it.\n');
    // The other file's text changed only at the link's destination.
    expect(await content('linker.md')).toBe(linker.replace('(target.md#usage)', '(archive/target.md#usage)'));
    // Its rendered view links to the new name, and the link opens it in the console.
    await page.goto(`${server.url}/#/p/${server.projectId}/f/linker.md`);
    const moved = main().locator('.rendered').getByRole('link', { name: 'the target' });
    await moved.waitFor();
    expect(decodeURIComponent((await moved.getAttribute('href')) ?? '')).toContain('/f/archive/target.md');
    // Issue 37: the file's details list its broken links (extensions §9) and say "None" for no metadata.
    const details = main().getByRole('complementary', { name: 'File details' });
    await details.getByRole('heading', { name: 'Broken links' }).waitFor();
    await details.getByText(/nowhere at all/).waitFor();
    expect(await details.getByText('None', { exact: true }).count()).toBeGreaterThan(0);
    await moved.click();
    await main().getByRole('heading', { name: 'archive/target.md' }).waitFor();
    await main().getByRole('heading', { name: 'Usage', level: 2 }).waitFor();
    // ...and the files that link here, each a link into the console.
    await details.getByRole('link', { name: 'linker.md' }).click();
    await main().getByRole('heading', { name: 'linker.md' }).waitFor();
    // Issue 37: its history names the rewrite as such, and which move it followed.
    await main().getByRole('button', { name: 'History' }).click();
    await main()
      .getByRole('cell', { name: /\(Links rewritten: target\.md moved to archive\/target\.md\)$/ })
      .waitFor();
  });

  it('webhooks: create one to a loopback URL, see it listed, delete it', async () => {
    const target = 'http://127.0.0.1:9/mdstore-hook';
    await page.goto(`${server.url}/#/webhooks`);
    await main().getByRole('heading', { name: 'Webhooks' }).waitFor();
    await main().getByLabel('Webhook URL').waitFor();
    await scan('webhooks');
    await main().getByLabel('Webhook URL').fill(target);
    await main().getByRole('button', { name: 'Create webhook' }).click();
    const remove = main().getByRole('button', { name: `Delete webhook ${target}` });
    await remove.waitFor();
    expect(await main().locator('code.secret').textContent()).toMatch(/\S{16,}/);
    expect(await main().getByRole('listitem').filter({ hasText: target }).textContent()).toContain('active');
    const listed = async () =>
      ((await (await api('/api/webhooks')).json()) as { webhooks: { url: string }[] }).webhooks.map(
        (hook) => hook.url,
      );
    expect(await listed()).toEqual([target]);
    await scan('webhooks with one');
    await remove.click();
    await expect.poll(() => remove.count()).toBe(0);
    expect(await listed()).toEqual([]);
  });

  async function openDraft(title: string, operations: unknown[]): Promise<string> {
    const made = await api(`/api/projects/${server.projectId}/drafts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ title, description: `${title}: proposed by an agent.`, operations }),
    });
    expect(made.status).toBe(201);
    return ((await made.json()) as { id: string }).id;
  }
  const putContent = async (name: string, text: string) =>
    expect(
      (
        await api(`${files(name)}/content`, {
          method: 'PUT',
          headers: { 'Content-Type': 'text/markdown' },
          body: text,
        })
      ).status,
    ).toBe(200);

  it('drafts (extensions §13): the list, a review with per-file diffs, approve, then publish (merged)', async () => {
    const made = await api(`/api/projects/${server.projectId}/files`, {
      method: 'POST',
      body: uploadForm('plan.md', '# Plan\n\nstep one\nstep two\n'),
    });
    expect(made.status).toBe(201);
    await openDraft('Plan the launch', [
      { op: 'put', filename: 'plan.md', content: '# Plan\n\nstep one\nstep two\nstep three\n' },
      { op: 'put', filename: 'launch.md', content: '# Launch\n\nOn Monday.\n' },
    ]);
    // Changed since the draft was made, apart from its change: the publish merges both.
    await putContent('plan.md', '# The plan\n\nstep one\nstep two\n');
    await page.goto(`${server.url}/#/p/${server.projectId}`);
    await main().getByRole('link', { name: 'Drafts' }).click();
    await main().getByRole('heading', { name: 'Drafts', level: 1 }).waitFor();
    const row = main().getByRole('row').filter({ hasText: 'Plan the launch' });
    expect(await row.textContent()).toContain('Open');
    await scan('drafts');
    await row.getByRole('link', { name: 'Plan the launch' }).click();
    await main().getByRole('heading', { name: 'Draft: Plan the launch' }).waitFor();
    expect(await main().textContent()).toContain('Plan the launch: proposed by an agent.');
    const plan = main().getByRole('region', { name: 'Changes to plan.md' });
    const launch = main().getByRole('region', { name: 'Changes to launch.md' });
    expect(await plan.textContent()).toContain('+step three');
    expect(await launch.textContent()).toContain('+On Monday.');
    // plan.md changed since its base: marked stale; launch.md did not.
    expect(
      await main()
        .getByRole('heading', { name: /^plan\.md .*stale$/ })
        .count(),
    ).toBe(1);
    expect(
      await main()
        .getByRole('heading', { name: /^launch\.md/ })
        .textContent(),
    ).not.toContain('stale');
    await scan('draft review');
    // "Request changes" needs a comment; "Approve" takes one.
    await main().getByRole('button', { name: 'Request changes' }).click();
    await main().getByText('Say what to change in the comment.').waitFor();
    await main().getByLabel('Review comment').fill('Ship it.');
    await main().getByRole('button', { name: 'Approve' }).click();
    const reviews = main().getByRole('region', { name: 'Reviews' });
    await reviews.getByText('Approved').waitFor();
    expect(await reviews.textContent()).toContain('Ship it.');
    await main().getByRole('button', { name: 'Publish' }).click();
    const published = main().getByRole('region', { name: 'Published' });
    await published.waitFor();
    expect(await published.textContent()).toContain('2 file(s) changed, 1 merged with changes made since');
    expect(await published.getByRole('listitem').allTextContents()).toEqual([
      expect.stringMatching(/^plan\.md \(revision 3, merged\)$/),
      expect.stringMatching(/^launch\.md \(revision 1\)$/),
    ]);
    await expect.poll(() => main().getByRole('definition').first().textContent()).toBe('Published');
    expect(await main().getByRole('button', { name: 'Publish' }).count()).toBe(0);
    expect(await content('plan.md')).toBe('# The plan\n\nstep one\nstep two\nstep three\n');
    expect(await content('launch.md')).toBe('# Launch\n\nOn Monday.\n');
  });

  it('drafts: a publish refused for overlapping changes shows the conflicts, and nothing changes', async () => {
    const draftId = await openDraft('Rename a step', [
      { op: 'put', filename: 'plan.md', content: '# The plan\n\nstep one\nstep 2\nstep three\n' },
    ]);
    const theirs = '# The plan\n\nstep one\nstep II\nstep three\n';
    await putContent('plan.md', theirs);
    await page.goto(`${server.url}/#/p/${server.projectId}/drafts/${draftId}`);
    await main().getByRole('heading', { name: 'Draft: Rename a step' }).waitFor();
    await main().getByRole('button', { name: 'Publish' }).click();
    const report = main().getByRole('region', { name: 'Conflicts' });
    await report.waitFor();
    const where = 'plan.md, line 4 of the base';
    await report.getByRole('heading', { name: 'Line 4 of the base' }).waitFor();
    expect(await report.getByRole('region', { name: `Base: ${where}` }).textContent()).toBe('step two');
    expect(await report.getByRole('region', { name: `Current: ${where}` }).textContent()).toBe('step II');
    expect(await report.getByRole('region', { name: `Draft: ${where}` }).textContent()).toBe('step 2');
    expect(await main().getByRole('status').first().textContent()).toContain('Nothing changed.');
    await scan('draft conflicts');
    expect(await content('plan.md')).toBe(theirs);
    // Closed from the review: no longer open, nothing published.
    await main().getByRole('button', { name: 'Close draft' }).click();
    await main().getByText('Closed: nothing was published.').waitFor();
    await expect.poll(() => main().getByRole('button', { name: 'Publish' }).count()).toBe(0);
    expect(await content('plan.md')).toBe(theirs);
  });

  /** An open draft (made in the read key's journey), for the narrow layout. */
  let openDraftId = '';

  it('a read key is offered nothing it may not do', async () => {
    const created = await api('/api/keys', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'reader', role: 'read' }),
    });
    const reader = ((await created.json()) as { api_key: string }).api_key;
    expect((await api(files('other.md'), { method: 'DELETE' })).status).toBe(204);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').fill(reader);
    await page.getByLabel('API key').press('Enter');
    await page.getByText('reader · read').waitFor();
    await page.goto(`${server.url}/#/p/${server.projectId}/f/readme.md`);
    await main().getByRole('heading', { name: 'Readme', exact: true, level: 1 }).waitFor();
    await main().getByRole('button', { name: 'History' }).waitFor();
    for (const name of ['Edit', 'Move', 'Delete'])
      expect(await main().getByRole('button', { name }).count(), name).toBe(0);
    expect(await page.getByRole('link', { name: 'Keys' }).count()).toBe(0);
    await page.goto(`${server.url}/#/p/${server.projectId}`);
    await main().getByRole('link', { name: 'Trash' }).waitFor();
    expect(await main().getByRole('heading', { name: 'Upload' }).count()).toBe(0);
    // Attachments: listed and downloadable, never uploaded or deleted with a read key.
    const attachments = main().getByRole('region', { name: 'Attachments' });
    await attachments.getByRole('button', { name: 'Download report.pdf' }).waitFor();
    expect(await attachments.getByLabel('Choose attachments to upload').count()).toBe(0);
    expect(await attachments.getByRole('button', { name: /^Delete / }).count()).toBe(0);
    expect(await main().getByRole('button', { name: 'Create file' }).count()).toBe(0);
    expect(await main().getByRole('link', { name: 'Settings' }).count()).toBe(0);
    await page.goto(`${server.url}/#/p/${server.projectId}/trash`);
    await main().getByRole('cell', { name: 'other.md' }).waitFor();
    expect(
      await main()
        .getByRole('button', { name: /^(Restore|Purge) / })
        .count(),
    ).toBe(0);
    // An open draft: read, not reviewed, published or closed.
    openDraftId = await openDraft('Left open', [{ op: 'put', filename: 'open.md', content: '# Open\n' }]);
    await page.goto(`${server.url}/#/p/${server.projectId}/drafts/${openDraftId}`);
    await main().getByRole('region', { name: 'Changes to open.md' }).waitFor();
    expect(await main().getByRole('definition').first().textContent()).toBe('Open');
    for (const name of ['Approve', 'Request changes', 'Publish', 'Close draft'])
      expect(await main().getByRole('button', { name }).count(), name).toBe(0);
  });

  it('keyboard only: sign in, reach a project and open a file with Tab and Enter', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    const field = page.getByLabel('API key');
    await field.waitFor();
    // The sign-in screen puts the focus in the key field itself (no click): wait for it, then type.
    await expect.poll(() => field.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type(server.apiKey);
    await page.keyboard.press('Enter');
    await nav('Projects').getByRole('link', { name: 'Default' }).waitFor();
    const tabTo = async (name: string) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
        if (focused === name) return;
      }
      throw new Error(`${name} is not reachable with Tab`);
    };
    await tabTo('Default');
    await page.keyboard.press('Enter');
    await nav('Folders').getByRole('link', { name: 'readme.md' }).waitFor();
    await tabTo('readme.md');
    await page.keyboard.press('Enter');
    await main().getByRole('heading', { name: 'readme.md' }).waitFor();
    await tabTo('Edit');
    await page.keyboard.press('Enter');
    await main().getByRole('textbox', { name: 'Content of readme.md' }).waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Content of readme.md');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Save');
    await tabTo('Cancel');
    await page.keyboard.press('Enter');
    await main().getByRole('button', { name: 'Edit' }).waitFor();
  });

  it('at 375 px wide nothing scrolls sideways', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    const heading = () => main().getByRole('heading').first();
    for (const [target, shown] of [
      [`#/p/${server.projectId}`, heading],
      [`#/p/${server.projectId}/drafts`, () => main().getByRole('link', { name: 'Left open' })],
      [
        `#/p/${server.projectId}/drafts/${openDraftId}`,
        () => main().getByRole('region', { name: 'Changes to open.md' }),
      ],
      [`#/p/${server.projectId}/f/${encodeURIComponent('guides/setup.md')}`, heading],
    ] as const) {
      await page.goto(`${server.url}/${target}`);
      await shown().waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, target).toBeLessThanOrEqual(375);
    }
    await scan('file view at 375 px');
    // Issue 37: on a phone a file opens on the file, above the projects and folders lists.
    const top = (locator: ReturnType<typeof main>) => locator.evaluate((e) => e.getBoundingClientRect().top);
    expect(await top(main())).toBeLessThan(await top(nav('Projects')));
    expect(await top(main())).toBeLessThan(await top(nav('Folders')));
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('a link that does not decode (#/p/%E0%A4%A) opens the projects, after a reload too (issue 34, finding 11)', async () => {
    // "URI malformed" thrown while the route is read would be a page error (checked below) and a blank page.
    for (const load of [() => page.goto(`${server.url}/#/p/%E0%A4%A`), () => page.reload()]) {
      await load();
      await nav('Projects').getByRole('link', { name: 'Default' }).waitFor();
      expect((await page.evaluate(() => document.body.innerText)).trim()).not.toBe('');
    }
  });

  it('restore as it was (extensions §16): a time, the preview of what changes, then Restore', async () => {
    // A second ago the readme was as it is now; then it changes, and the project goes back to then.
    const before = await content('readme.md');
    // `then` is a second after the earlier journeys' last write and a second before this one's: a
    // restore as of `then` undoes this write only (the store's times have a second's grain here).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const then = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const put = await api(`${files('readme.md')}/content`, {
      method: 'PUT',
      headers: { 'Content-Type': 'text/markdown' },
      body: '# Readme\n\nchanged since\n',
    });
    expect(put.status).toBe(200);
    await page.goto(`${server.url}/#/p/${server.projectId}`);
    const asOf = main().getByLabel('As of');
    await asOf.waitFor();
    // The browser's local time, as a datetime-local field takes it (to the second).
    const local = await page.evaluate(
      (ms) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19),
      then,
    );
    await asOf.fill(local);
    await main().getByRole('button', { name: 'Preview' }).click();
    await main().getByText('Change readme.md (content of revision').waitFor();
    await scan('restore');
    expect(await content('readme.md')).toBe('# Readme\n\nchanged since\n');
    await main().getByRole('button', { name: 'Restore', exact: true }).click();
    await expect
      .poll(() => main().getByRole('status').last().textContent())
      .toMatch(/^Restored: 0 created, 1 changed, 0 deleted\.$/);
    expect(await content('readme.md')).toBe(before);
  });

  it('no serious or critical axe violation on any screen; no error, nothing loaded from elsewhere', () => {
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });
});
